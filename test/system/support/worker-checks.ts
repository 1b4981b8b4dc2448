/** What the worker system tests read back from a booted worker: units, Docker, the ready marker. */
import { WORKER_READY_FILE } from "../../../lib/render/config-toml";
import { modifiedAt, type Worker } from "./worker-boot";

/** What Ubuntu runs to upgrade packages on its own: the worker masks all of them (Launchpad bug 1870514). */
export const UPGRADE_UNITS = ["apt-daily.timer", "apt-daily.service", "apt-daily-upgrade.timer", "apt-daily-upgrade.service", "unattended-upgrades.service"] as const;

/** For each unit: what `systemctl is-enabled` says, and its load and active states. */
export async function unitStates(worker: Worker, units: readonly string[]): Promise<Record<string, string>> {
  const states: Record<string, string> = {};
  for (const unit of units) {
    const enabled = (await worker.container.exec(["systemctl", "is-enabled", unit], { check: false })).stdout.trim();
    const { LoadState, ActiveState } = await worker.container.unitProperties(unit, ["LoadState", "ActiveState"]);
    states[unit] = `${enabled} ${LoadState} ${ActiveState}`;
  }
  return states;
}

/** Every unit masked by name (is-enabled and LoadState) and not running. */
export function allMaskedAndInactive(units: readonly string[]): Record<string, string> {
  return Object.fromEntries(units.map((unit) => [unit, "masked masked inactive"]));
}

/** Calls of apt-get or dnf that install a package, as "tool args". */
export function packageInstalls(worker: Worker): string[] {
  return worker.stubs
    .calls()
    .filter((call) => (call.tool === "apt-get" || call.tool === "dnf") && call.event === "call" && call.args.includes("install"))
    .map((call) => [call.tool, ...call.args].join(" "));
}

/**
 * When the ready marker was written, and when dockerd first answered `docker info` (the CLI stub's record):
 * the manager hands out jobs once the marker exists, so it must come after.
 */
export async function readyAfterDocker(worker: Worker): Promise<{ markerAt: number; firstAnsweredInfoAt: number | undefined; refusedInfoAt: number[] }> {
  const info = (event: string) => worker.stubs.callsOf("docker", event).filter((call) => call.args[0] === "info");
  return {
    markerAt: await modifiedAt(worker.container, WORKER_READY_FILE),
    firstAnsweredInfoAt: info("answered")[0]?.at,
    // dockerd answers a moment after its unit started (stubs/docker/dockerd): a boot that waits sees refusals first.
    refusedInfoAt: info("refused").map((call) => call.at),
  };
}

/** The groups of a user, as `id -nG` lists them. */
export async function groupsOf(worker: Worker, user: string): Promise<string[]> {
  return (await worker.container.exec(["id", "-nG", user])).stdout.trim().split(/\s+/);
}

/** `docker info` as the user the manager connects as: answers only to a member of the docker group. */
export async function dockerInfoAs(worker: Worker, user: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return worker.container.exec(["runuser", "-u", user, "--", "docker", "info"], { check: false });
}

/** Units systemd lists as failed: a worker that leaves some is degraded for every monitor that looks. */
export async function failedUnits(worker: Worker): Promise<string[]> {
  const listed = await worker.container.exec(["systemctl", "list-units", "--failed", "--plain", "--no-legend", "--no-pager"]);
  return listed.stdout.split("\n").filter(Boolean).map((line) => line.split(/\s+/)[0]);
}
