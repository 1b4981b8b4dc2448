/**
 * A dry run lists shards in one order everywhere (issue 37): the changes per shard follow the model, as the
 * capacity and cost tables of the same run do; and a simulated shard no job went to says so, not "p95 0.0 s".
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseModel } from "../../lib/model/load";
import { cellChangeSummary } from "../../lib/review/cell-summary";
import { summarizeSynth } from "../../lib/review/change-summary";
import { queueTextLines } from "../../lib/review/render-queue";
import { renderSummaryText } from "../../lib/review/render-summary";
import { MODELS_DIR } from "../support/models";

const { model } = parseModel(readFileSync(join(MODELS_DIR, "cell-1.yaml"), "utf8"), "cell-1.yaml");

it("lists the changes of small-amd64 before large-amd64, as cell-1 lists them, cell-wide first", () => {
  const stack = {
    resource: {
      google_compute_network: { network: {} },
      google_storage_bucket: { large_cache: {}, small_cache: {} },
    },
  };
  const shardOf = (address: string) => ({ "google_storage_bucket.large_cache": "large-amd64", "google_storage_bucket.small_cache": "small-amd64" })[address];
  const summary = cellChangeSummary(model, summarizeSynth(stack as never, shardOf as never));
  expect(summary.changes.byShard.map((group) => group.shard)).toEqual([null, "small-amd64", "large-amd64"]);
  expect(summary.changes.resources.map((resource) => resource.shard)).toEqual([null, "small-amd64", "large-amd64"]);
  const text = renderSummaryText([summary]);
  expect(text.indexOf("shard small-amd64:")).toBeLessThan(text.indexOf("shard large-amd64:"));
  expect(text.indexOf("small-amd64  2")).toBeLessThan(text.indexOf("large-amd64  2"));
});

it("says no jobs for a simulated shard no job went to", () => {
  const lines = queueTextLines({
    cell: "cell-1",
    load: "models/traces/cell-1.csv (1 job)",
    targetWaitSeconds: 30,
    shards: [
      { shard: "small-amd64", before: { jobs: 0, p95WaitSeconds: 0, monthlyCostUsd: 10 }, after: { jobs: 0, p95WaitSeconds: 0, monthlyCostUsd: 12 }, raisedAboveTarget: false },
      { shard: "large-amd64", before: null, after: { jobs: 1, p95WaitSeconds: 0.8, monthlyCostUsd: 20 }, raisedAboveTarget: false },
    ],
    charts: [],
  });
  expect(lines).toEqual([
    "simulated on models/traces/cell-1.csv (1 job):",
    "  small-amd64: p95 wait no jobs → no jobs, simulated cost $10.00 → $12.00 a month",
    "  large-amd64: p95 wait none → 0.8 s, simulated cost none → $20.00 a month",
  ]);
});
