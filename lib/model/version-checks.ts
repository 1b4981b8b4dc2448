/**
 * gitlab-runner versions that cannot run the stack as it is installed. The startup script
 * installs the fleeting plugin with `gitlab-runner fleeting install` from the OCI registry
 * (templates/config.toml.hbs `plugin = ...`), which GitLab Runner 16.11 introduced ("Introduced
 * OCI registry distribution in GitLab Runner 16.11", https://docs.gitlab.com/runner/fleet_scaling/fleeting/,
 * gitlab-runner MR 4690 adds the `fleeting` subcommand). An older runner has no such command: the
 * boot fails on every manager. An error (exit 2).
 */
import type { CrossCheckFinding } from "./finding";
import type { RunnerModel } from "./schema";

export const OLDEST_RUNNER_VERSION = [16, 11, 0] as const;

export function checkRunnerVersions(model: RunnerModel): CrossCheckFinding[] {
  return model.shards.flatMap((shard, index): CrossCheckFinding[] => {
    const parts = shard.managers.runner_version.split(".").map(Number);
    if (compare(parts, OLDEST_RUNNER_VERSION) >= 0) return [];
    return [
      {
        severity: "error",
        path: ["shards", index, "managers", "runner_version"],
        expected: `gitlab-runner ${OLDEST_RUNNER_VERSION.join(".")} or later: the managers install the fleeting plugin with \`gitlab-runner fleeting install\`, which GitLab Runner 16.11 introduced`,
        received: JSON.stringify(shard.managers.runner_version),
      },
    ];
  });
}

function compare(a: readonly number[], b: readonly number[]): number {
  for (let index = 0; index < 3; index++) if (a[index] !== b[index]) return a[index] - b[index];
  return 0;
}
