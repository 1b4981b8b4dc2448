/**
 * Boots a runner manager's startup payload in a system-test container, the way its cloud would.
 *
 * The payload is what the VM gets (`renderManagerStartupScript`: EC2 user data, GCE
 * `startup-script` metadata), so these helpers do not depend on how the script is laid out.
 * - AWS: cloud-init writes a user-data shell script to /var/lib/cloud/instance/scripts/part-001
 *   and runs it as root from its final stage (a systemd oneshot); here a transient oneshot unit.
 * - Google: the guest agent's google-startup-scripts.service runs the startup-script as root; here
 *   a transient oneshot unit too.
 * Before the boot, the cloud's endpoints are answered by the stubs: IMDSv2 and SSM (AWS), the
 * metadata server, Secret Manager, the Compute API and Cloud Monitoring (Google), GitLab's
 * runners/verify, and packages.gitlab.com.
 */
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { renderConfigToml, renderManagerStartupScript } from "../../../lib/render/manager-files";
import { liveConfigContent } from "../../../lib/render/live-config";
import { liveConfigLocation, managerName, secretLocation, zoneOfSlot } from "../../../lib/model/names";
import type { RunnerModel, Shard } from "../../../lib/model/schema";
import { CONTAINER_STUB_DIR, SystemContainer } from "./system-container";
import { StubState } from "./stub-state";

/** The gitlab-runner Debian package's systemd unit, as the renderer's tests reproduce it. */
const PACKAGE_UNIT = join(__dirname, "..", "..", "render", "fixtures", "gitlab-runner.service");
/** Made at run time (URL-safe, as runner tokens are): no token-shaped string is kept in the repository. */
export const FIRST_TOKEN = `glrt-t1_${randomBytes(15).toString("base64url")}`;
/** The runner's ID in GitLab: a rotated token keeps it. */
export const RUNNER_ID = 4242;
export const INSTANCE_ID = "i-0123456789abcdef0";
export const CURRENT_TEMPLATE = "tmpl-current";
/** The unit the payload runs in: cloud-init's and the guest agent's stand-in. */
export const BOOT_UNIT = "runner-fleet-cloud-boot";

export interface Manager {
  readonly container: SystemContainer;
  readonly stubs: StubState;
  readonly model: RunnerModel;
  readonly shard: Shard;
  readonly slot: number;
  readonly cloud: "google" | "aws";
}

/** packages.gitlab.com's repository metadata signing key (docs/security.md, "What a VM downloads at boot"). */
const GITLAB_REPOSITORY_KEY_FINGERPRINT = "F6403F6544A38863DAA0B6E03F01618A51312F3F";

export interface BootResult {
  /** The payload's exit status (the transient unit's). */
  readonly code: number;
  readonly journal: string;
}

/** A booted container with the cloud's endpoints answered and the manager's token stored. */
export async function managerContainer(label: string, model: RunnerModel, shard: Shard, slot = 0): Promise<Manager> {
  const cloud = model.cloud.provider;
  if (cloud !== "google" && cloud !== "aws") throw new Error(`no system-test stubs for cloud ${cloud}`);
  const container = await SystemContainer.boot(label);
  try {
    const stubs = new StubState(container.stubState);
    const manager: Manager = { container, stubs, model, shard, slot, cloud };
    // GitLab's repository key, as the gpg stub reads a key file: the fingerprint the boot pins (scripts/manager/install.sh).
    stubs.httpResponse("GET", "https://packages.gitlab.com/runner/gitlab-runner/gpgkey", `fingerprints ${GITLAB_REPOSITORY_KEY_FINGERPRINT}\n`);
    // The unit the Debian package's post-install writes (`gitlab-runner install`), installed by the apt-get stub.
    stubs.write("packages/gitlab-runner.service", readFileSync(PACKAGE_UNIT, "utf8"));
    if (cloud === "aws") answerAws(manager);
    else answerGoogle(manager);
    storeToken(manager, FIRST_TOKEN);
    storeConfig(manager, liveConfigContent(renderConfigToml(manager.model, manager.shard, manager.slot)));
    await container.exec([`${CONTAINER_STUB_DIR}/seed.sh`, cloud]);
    return manager;
  } catch (error) {
    await container.dispose();
    throw error;
  }
}

function answerAws(manager: Manager): void {
  const { stubs } = manager;
  stubs.httpResponse("GET", "http://169.254.169.254/latest/meta-data/instance-id", INSTANCE_ID);
  awsLifecycleState({ stubs } as Manager, "InService");
  // The slot's group holds this instance alone: no earlier manager of the slot is draining.
  stubs.autoscalingGroup(managerName(manager.model, manager.shard, manager.slot), [{ id: INSTANCE_ID, state: "InService" }]);
}

/** What IMDS says at meta-data/autoscaling/target-lifecycle-state. */
export function awsLifecycleState({ stubs }: Pick<Manager, "stubs">, state: "InService" | "Terminated"): void {
  stubs.httpResponse("GET", "http://169.254.169.254/latest/meta-data/autoscaling/target-lifecycle-state", state);
}

export function googleGroupPath({ model, shard, slot }: Manager): string {
  if (model.cloud.provider !== "google") throw new Error("not a Google model");
  return `projects/${model.cloud.project}/zones/${zoneOfSlot(model.cloud.zones, slot)}/instanceGroupManagers/${managerName(model, shard, slot)}`;
}

export function googleSecretUrl({ model, shard }: Manager): string {
  if (model.cloud.provider !== "google") throw new Error("not a Google model");
  return `https://secretmanager.googleapis.com/v1/projects/${model.cloud.project}/secrets/${secretLocation(model, shard).googleSecretId}/versions/latest:access`;
}

export function googleInstanceName(manager: Manager): string {
  return `${managerName(manager.model, manager.shard, manager.slot)}-x1y2`;
}

function answerGoogle(manager: Manager): void {
  const { stubs } = manager;
  const metadata = "http://metadata.google.internal/computeMetadata/v1/instance";
  stubs.httpResponse("GET", `${metadata}/service-accounts/default/token`, JSON.stringify({ access_token: "ya29.stub-access-token", expires_in: 3599, token_type: "Bearer" }));
  stubs.httpResponse("GET", `${metadata}/name`, googleInstanceName(manager));
  stubs.httpResponse("GET", `${metadata}/attributes/instance-template`, `projects/p/global/instanceTemplates/${CURRENT_TEMPLATE}`);
  googleGroupTemplate(manager, CURRENT_TEMPLATE);
  stubs.httpResponse("POST", `https://compute.googleapis.com/compute/v1/${googleGroupPath(manager)}/recreateInstances`, JSON.stringify({ kind: "compute#operation", status: "RUNNING" }));
  if (manager.model.cloud.provider === "google") {
    stubs.httpResponse("POST", `https://monitoring.googleapis.com/v3/projects/${manager.model.cloud.project}/timeSeries`, "{}");
  }
}

/** The instance template the manager's group (Compute API) says it uses now. */
export function googleGroupTemplate(manager: Manager, template: string): void {
  manager.stubs.httpResponse(
    "GET",
    `https://compute.googleapis.com/compute/v1/${googleGroupPath(manager)}`,
    JSON.stringify({ name: managerName(manager.model, manager.shard, manager.slot), instanceTemplate: `https://www.googleapis.com/compute/v1/projects/p/global/instanceTemplates/${template}` }),
  );
}

/** Puts a token in the shard's secret store (SSM parameter or Secret Manager secret); GitLab knows it as the runner's. */
export function storeToken(manager: Manager, token: string): void {
  manager.stubs.gitlabRunnerToken(token, RUNNER_ID);
  if (manager.cloud === "aws") {
    manager.stubs.ssmParameter(secretLocation(manager.model, manager.shard).awsParameterName, token);
  } else {
    manager.stubs.httpResponse("GET", googleSecretUrl(manager), JSON.stringify({ name: "latest", payload: { data: Buffer.from(token).toString("base64") } }));
  }
}

/** Puts the slot's config.toml where the stack stores it (lib/render/live-config.ts): an SSM parameter or a Secret Manager secret. */
export function storeConfig(manager: Manager, content: string): void {
  const location = liveConfigLocation(manager.model, manager.shard, manager.slot);
  if (manager.cloud === "aws") {
    manager.stubs.ssmParameter(location.awsParameterName, content);
  } else if (manager.model.cloud.provider === "google") {
    const url = `https://secretmanager.googleapis.com/v1/projects/${manager.model.cloud.project}/secrets/${location.googleSecretId}/versions/latest:access`;
    manager.stubs.httpResponse("GET", url, JSON.stringify({ name: "latest", payload: { data: Buffer.from(content).toString("base64") } }));
  }
}

/**
 * The boot's test hooks (scripts/manager): shorter bounds and polls than a real VM's, so a test sees a bound
 * end in seconds. Unset on real VMs.
 */
export interface BootHooks {
  readonly RUNNER_FLEET_CREDENTIALS_WAIT_SECONDS?: string;
  readonly RUNNER_FLEET_SLOT_WAIT_SECONDS?: string;
  readonly RUNNER_FLEET_SLOT_POLL_SECONDS?: string;
}

/** Runs the manager's payload as its cloud would, and waits for it to finish. */
export async function bootPayload(manager: Manager, hooks: BootHooks = {}): Promise<BootResult> {
  const { container } = manager;
  const path = manager.cloud === "aws" ? "/var/lib/cloud/instance/scripts/part-001" : "/var/lib/google/startup-script";
  await container.writeFile(path, renderManagerStartupScript(manager.model, manager.shard, manager.slot), "0700");
  return runBootUnit(manager, path, hooks);
}

/** An AWS manager's later boots: cloud-init runs the per-boot hook the first boot installed. */
export function rebootHook(manager: Manager): Promise<BootResult> {
  return runBootUnit(manager, "/var/lib/cloud/scripts/per-boot/runner-fleet-manager.sh", {});
}

async function runBootUnit({ container }: Manager, path: string, hooks: BootHooks): Promise<BootResult> {
  const unit = `${BOOT_UNIT}-${(bootUnits += 1)}`;
  const setenv = Object.entries(hooks).map(([name, value]) => `--setenv=${name}=${value}`);
  const result = await container.exec(["systemd-run", `--unit=${unit}`, "--wait", "--quiet", "--property=Type=oneshot", ...setenv, path], { check: false, timeoutMs: 120_000 });
  return { code: result.code, journal: await container.journal(unit) };
}
let bootUnits = 0;
