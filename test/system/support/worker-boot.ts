/**
 * Boots a worker's startup payload in a system-test container, on a stand-in of the image the worker would
 * boot (support/stubs/images/seed-worker-image.sh), the way its cloud runs it: the payload
 * (`renderWorkerStartupScript`, GCE `startup-script` metadata or EC2 user data) as root in a oneshot unit, the
 * guest agent's and cloud-init's stand-in. Docker is the stand-in of support/stubs/docker: a docker.service
 * whose dockerd reads /etc/docker/daemon.json as dockerd does, and a docker CLI that records its calls.
 */
import { renderWorkerStartupScript } from "../../../lib/render/startup-script";
import type { RunnerModel, Shard } from "../../../lib/model/schema";
import { CONTAINER_STUB_DIR, SystemContainer } from "./system-container";
import { StubState } from "./stub-state";
import { BOOT_UNIT, type BootResult } from "./manager-boot";

/** The images the stand-ins reproduce (seed-worker-image.sh says what each brings). */
export type WorkerImage = "ubuntu" | "ubuntu-with-docker" | "amazon-linux-2023-ecs";

export interface Worker {
  readonly container: SystemContainer;
  readonly stubs: StubState;
  readonly model: RunnerModel;
  readonly shard: Shard;
}

/** A booted container that looks like `image`, its services running as the image starts them. */
export async function workerContainer(label: string, model: RunnerModel, shard: Shard, image: WorkerImage): Promise<Worker> {
  const container = await SystemContainer.boot(label);
  try {
    const stubs = new StubState(container.stubState);
    await container.exec([`${CONTAINER_STUB_DIR}/images/seed-worker-image.sh`, image]);
    return { container, stubs, model, shard };
  } catch (error) {
    await container.dispose();
    throw error;
  }
}

/** Runs the shard's worker payload as its cloud would, and waits for it to finish. */
export async function bootWorkerPayload(worker: Worker): Promise<BootResult> {
  const { container } = worker;
  const path = worker.model.cloud.provider === "aws" ? "/var/lib/cloud/instance/scripts/part-001" : "/var/lib/google/startup-script";
  await container.writeFile(path, renderWorkerStartupScript(worker.model, worker.shard), "0700");
  const result = await container.exec(["systemd-run", `--unit=${BOOT_UNIT}`, "--wait", "--quiet", "--property=Type=oneshot", path], { check: false, timeoutMs: 120_000 });
  return { code: result.code, journal: await container.journal(BOOT_UNIT) };
}

/** Epoch milliseconds of a file's last change inside the container. */
export async function modifiedAt(container: SystemContainer, path: string): Promise<number> {
  return Number((await container.exec(["date", "-r", path, "+%s%3N"])).stdout.trim());
}

/** The MTU of Docker's default bridge, as the running daemon reports it. */
export async function bridgeMtu(container: SystemContainer): Promise<number> {
  const [bridge] = JSON.parse((await container.exec(["docker", "network", "inspect", "bridge"])).stdout) as [{ Options: Record<string, string> }];
  return Number(bridge.Options["com.docker.network.driver.mtu"]);
}
