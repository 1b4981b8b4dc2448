/**
 * Google Cloud: a shard's managers may act on "the instances of their worker groups", an IAM condition
 * `resource.name.startsWith(".../instances/<group>-")` (constructs/google/fleeting-iam.ts): a managed
 * instance group names its instances "<base>-<4 characters>", and IAM conditions on resource.name offer
 * prefixes, not patterns. A worker group is named "<cell>-<shard>-wrk-<slot>" (names.ts workerGroupName),
 * so the instances of another group fall under that prefix exactly when the other group's "<cell>-<shard>"
 * holds "-wrk-<digits>" followed by "-" or its end: shard "a-wrk-0-x" of cell "c" makes group
 * "c-a-wrk-0-x-wrk-0", whose instances start with "c-a-wrk-0-", and the managers of shard "a" could set
 * metadata (push SSH keys) on them. Such names are refused, in every cell, so no group of the project, of
 * this cell or another, is a prefix of another's instances.
 */
import type { CrossCheckFinding } from "./finding";
import { shardPrefix } from "./names";
import type { RunnerModel } from "./schema";

/** "-wrk-<digits>" ending the name or followed by "-": what makes a group name start with another's "<group>-". */
const WORKER_GROUP_MARK = /-wrk-\d+(-|$)/;

export function checkWorkerGroupPrefixes(model: RunnerModel): CrossCheckFinding[] {
  if (model.cloud.provider !== "google") return [];
  return model.shards.flatMap((shard, index): CrossCheckFinding[] => {
    const prefix = shardPrefix(model, shard);
    const mark = WORKER_GROUP_MARK.exec(prefix);
    if (!mark) return [];
    return [
      {
        severity: "error",
        path: ["shards", index, "name"],
        expected: `a shard name that, after the cell id, holds no "${mark[0].replace(/-$/, "")}" part, such as "${shard.name.replace(/-?wrk-\d+/g, "") || "small"}" (security: "${prefix}-wrk-0" would name instances that start with "${prefix.slice(0, mark.index + mark[0].replace(/-$/, "").length)}-", so another shard's managers, whose IAM condition admits the instances of their own group by that prefix, could set metadata on this shard's workers)`,
        received: JSON.stringify(shard.name),
      },
    ];
  });
}
