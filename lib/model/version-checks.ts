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

/**
 * `preemptive_mode` in [[runners.autoscaler.policy]]: gitlab-runner 18.1 added it (merge request 5565;
 * v18.0.0's common/config.go AutoscalerPolicyConfig has no such field, v18.1.0's has PreemptiveMode).
 * An older runner ignores the key, so the policy runs with the default the model meant to change.
 */
export const PREEMPTIVE_MODE_RUNNER_VERSION = [18, 1, 0] as const;

export function checkRunnerVersions(model: RunnerModel): CrossCheckFinding[] {
  return model.shards.flatMap((shard, index): CrossCheckFinding[] => {
    const parts = shard.managers.runner_version.split(".").map(Number);
    if (compare(parts, OLDEST_RUNNER_VERSION) < 0) {
      return [
        {
          severity: "error",
          path: ["shards", index, "managers", "runner_version"],
          expected: `gitlab-runner ${OLDEST_RUNNER_VERSION.join(".")} or later: the managers install the fleeting plugin with \`gitlab-runner fleeting install\`, which GitLab Runner 16.11 introduced`,
          received: JSON.stringify(shard.managers.runner_version),
        },
      ];
    }
    if (compare(parts, PREEMPTIVE_MODE_RUNNER_VERSION) >= 0) return [];
    return shard.autoscaling.policies.flatMap((policy, at): CrossCheckFinding[] =>
      policy.preemptive_mode === undefined
        ? []
        : [
            {
              severity: "error",
              path: ["shards", index, "autoscaling", "policies", at, "preemptive_mode"],
              expected: `managers.runner_version ${PREEMPTIVE_MODE_RUNNER_VERSION.join(".")} or later (gitlab-runner 18.1 added preemptive_mode; ${shard.managers.runner_version} ignores it), or no preemptive_mode`,
              received: JSON.stringify(policy.preemptive_mode),
            },
          ],
    );
  });
}

function compare(a: readonly number[], b: readonly number[]): number {
  for (let index = 0; index < 3; index++) if (a[index] !== b[index]) return a[index] - b[index];
  return 0;
}
