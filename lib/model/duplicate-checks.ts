/**
 * Entries a shard lists twice where the second is silently dead: two autoscaling policies with
 * the same periods (where several apply, gitlab-runner uses the last, so the earlier one never
 * applies: https://docs.gitlab.com/runner/executors/docker_autoscaler/#example-for-autoscaler-policies).
 * A warning: the model still works, but not as it reads. (The same shard name twice is an error
 * in cross-checks.ts; the same tag twice is dropped as GitLab drops it, see tags.ts.)
 */
import type { CrossCheckFinding } from "./finding";
import type { RunnerModel } from "./schema";

export function checkDuplicates(model: RunnerModel): CrossCheckFinding[] {
  return model.shards.flatMap((shard, shardIndex) => {
    const seen = new Map<string, number>();
    return shard.autoscaling.policies.flatMap((policy, index): CrossCheckFinding[] => {
      const key = `${[...policy.periods].sort().join("\n")}|${policy.timezone}`;
      const earlier = seen.get(key);
      seen.set(key, index);
      if (earlier === undefined) return [];
      return [
        {
          severity: "warning",
          path: ["shards", shardIndex, "autoscaling", "policies", index, "periods"],
          expected: `periods of their own: policies[${earlier}] has the same periods in the same time zone, and the last policy that applies wins, so policies[${earlier}] never applies`,
          received: JSON.stringify(policy.periods),
        },
      ];
    });
  });
}
