/**
 * The monthly cost estimate of the capacity summary. Expected figures are worked out
 * here from the price table file and the models, not taken from the estimator.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { averageIdleWorkers, estimateCellCost } from "../../lib/cost/estimate";
import { parsePriceTable } from "../../lib/cost/price-table";
import { cellChangeSummary } from "../../lib/review/cell-summary";
import { describeCostChange } from "../../lib/review/cost-change";
import { formatMoney } from "../../lib/review/render-cost";
import type { ChangeSummary } from "../../lib/review/change-summary";
import { renderSummaryMarkdown, renderSummaryText } from "../../lib/review/render-summary";
import { REPO_ROOT, runBin } from "../support/cli";
import { exampleModel, modelWith } from "../support/models";

const TABLE_FILE = join(REPO_ROOT, "data", "prices.json");
const table = JSON.parse(readFileSync(TABLE_FILE, "utf8"));
const HOURS = 730;
const WEEK_HOURS = 7 * 24;

describe("the price table", () => {
  it("is dated, names its sources, and prices every machine type of the example models and the generator's defaults", () => {
    expect(table.as_of).toMatch(/^\d{4}-\d{2}/);
    expect(table.sources.aws).toContain("https://aws.amazon.com/");
    expect(table.sources.google).toContain("https://cloud.google.com/");
    const used: Array<[string, string, string]> = [];
    for (const name of ["cell-1", "cell-2"] as const) {
      const model = exampleModel(name);
      for (const shard of model.shards) for (const type of [shard.managers.machine_type, shard.workers.machine_type]) used.push([model.cloud.provider, model.cloud.region, type]);
    }
    // app/prepare/generate-model.ts defaults: e2-standard-2 / n2d-standard-2 (google), t3.medium / m7i.large (aws).
    used.push(["google", "europe-west4", "e2-standard-2"], ["google", "europe-west4", "n2d-standard-2"], ["aws", "eu-west-1", "t3.medium"], ["aws", "eu-west-1", "m7i.large"]);
    for (const [cloud, region, type] of used) expect([cloud, region, type, table.hourly[cloud][region][type]]).toEqual([cloud, region, type, expect.any(Number)]);
  });

  it("fails when a price is zero or missing its date", () => {
    expect(() => parsePriceTable({ ...table, hourly: { ...table.hourly, aws: { "eu-west-1": { "t3.medium": 0 } } } })).toThrow();
    const { as_of: _dropped, ...undated } = table;
    expect(() => parsePriceTable(undated)).toThrow();
  });
});

describe("estimateCellCost", () => {
  it("prices cell-2's spot workers at the on-demand price less the table's spot discount", () => {
    const model = exampleModel("cell-2");
    const [shard] = model.shards;
    const prices = table.hourly.aws["eu-west-1"];
    const workerHourly = prices["m7i.large"] * (1 - table.spot_discount.aws);
    // Idle: 1 slot always, 8 slots on weekdays 08:00-18:59 in Dublin (UTC in January): 11 h x 5 days of the week.
    const workingShare = (11 * 5) / WEEK_HOURS;
    const idleInstances = shard.managers.count * (1 * (1 - workingShare) + 8 * workingShare);

    const [cost] = estimateCellCost(model).shards;

    expect(cost.managers.monthly).toBeCloseTo(2 * prices["t3.medium"] * HOURS, 6);
    expect(cost.workers).toMatchObject({ spot: true, spotDiscount: table.spot_discount.aws, onDemandHourly: prices["m7i.large"] });
    expect(cost.workers.hourly).toBeCloseTo(workerHourly, 9);
    expect(cost.workers.averageIdleInstances).toBeCloseTo(idleInstances, 6);
    expect(cost.workers.idleMonthly).toBeCloseTo(idleInstances * workerHourly * HOURS, 4);
    expect(cost.workers.maxMonthly).toBeCloseTo(2 * 50 * workerHourly * HOURS, 4);
    expect(cost.monthly.max).toBeCloseTo(2 * prices["t3.medium"] * HOURS + 100 * workerHourly * HOURS, 4);
  });

  it("uses the model's spot discount over the table's", () => {
    const model = modelWith("cell-2", (m) => {
      m.cost.spot_discount = 0.75;
    });

    const [cost] = estimateCellCost(model).shards;

    expect(cost.workers.hourly).toBeCloseTo(table.hourly.aws["eu-west-1"]["m7i.large"] * 0.25, 9);
  });

  it("does not discount on-demand workers", () => {
    const model = exampleModel("cell-1");

    const [small] = estimateCellCost(model).shards;

    expect(small.workers).toMatchObject({ spot: false, hourly: table.hourly.google["europe-west4"]["n2d-standard-2"] });
    expect(small.workers.spotDiscount).toBeUndefined();
  });

  it("names an unknown machine type and leaves its sums unknown instead of 0", () => {
    const model = modelWith("cell-1", (m) => {
      m.shards[1].workers.machine_type = "n2d-custom-12-49152";
    });

    const cost = estimateCellCost(model);

    expect(cost.unpriced).toEqual(["n2d-custom-12-49152 (workers of shard large-amd64) in europe-west4"]);
    expect(cost.shards[1].workers).toMatchObject({ hourly: null, idleMonthly: null, maxMonthly: null, source: null });
    expect(cost.shards[1].monthly).toEqual({ idle: null, max: null });
    expect(cost.shards[1].managers.monthly).toBeGreaterThan(0);
    expect(cost.shards[0].monthly.max).toBeGreaterThan(0);
    expect(cost.total).toEqual({ idle: null, max: null });
    // What is priced still adds up: both shards' managers, and shard 0's workers.
    const known = (pick: "idleMonthly" | "maxMonthly") => cost.shards[0].monthly[pick === "idleMonthly" ? "idle" : "max"]! + cost.shards[1].managers.monthly!;
    expect(cost.priced.idle).toBeCloseTo(known("idleMonthly"), 6);
    expect(cost.priced.max).toBeCloseTo(known("maxMonthly"), 6);
  });

  it("keeps one instance a manager warm at idle_count 0, for the job request in flight: unpriced, its idle cost is unknown", () => {
    const model = modelWith("cell-1", (m) => {
      m.shards[1].workers.machine_type = "n2d-custom-12-49152";
      m.shards[1].autoscaling.policies = m.shards[1].autoscaling.policies.map((policy) => ({ ...policy, idle_count: 0 }));
    });

    const cost = estimateCellCost(model);

    // gitlab-runner reserves a slot before each job request (commands/multi.go processRunner), and a policy
    // with idle_count 0 is not preemptive, so the reservation's slot is kept on top of no idle slots.
    expect(cost.shards[1].workers.averageIdleInstances).toBe(model.shards[1].managers.count);
    expect(cost.shards[1].workers.idleMonthly).toBeNull();
    expect(cost.total.idle).toBeNull();
    expect(cost.total.max).toBeNull();
  });

  it("counts the reservation inside the idle slots of a preemptive policy, on top of them otherwise", () => {
    const withPolicy = (idle: number, preemptive?: boolean) =>
      averageIdleWorkers(
        modelWith("cell-1", (m) => {
          m.shards[0].managers.count = 2;
          m.shards[0].workers.capacity_per_instance = 1;
          m.shards[0].autoscaling.policies = [{ ...m.shards[0].autoscaling.policies[0], periods: ["* * * * *"], idle_count: idle, ...(preemptive === undefined ? {} : { preemptive_mode: preemptive }) }];
        }).shards[0],
      );
    expect(withPolicy(0)).toBe(2); // not preemptive: the request's slot, one instance a manager
    expect(withPolicy(0, true)).toBe(0); // preemptive: the request waits for an idle slot, and none is kept
    expect(withPolicy(3)).toBe(6); // preemptive (idle_count > 0): the reservation is one of the three
    expect(withPolicy(3, false)).toBe(8); // explicitly not preemptive: three idle and the reservation's slot
  });

  it("knows no prices in a region the table lacks", () => {
    const model = modelWith("cell-1", (m) => {
      if (m.cloud.provider === "google") m.cloud.region = "asia-east1";
    });

    expect(estimateCellCost(model).unpriced).toHaveLength(4);
  });

  it("takes the model's price for a type the table lacks, and over the table's", () => {
    const model = modelWith("cell-1", (m) => {
      m.shards[1].workers.machine_type = "n2d-custom-12-49152";
      m.cost.hourly_prices = { "n2d-custom-12-49152": 0.5, "e2-standard-2": 0.01 };
    });

    const cost = estimateCellCost(model);

    expect(cost.unpriced).toEqual([]);
    expect(cost.shards[1].workers).toMatchObject({ hourly: 0.5, source: "model" });
    expect(cost.shards[1].workers.maxMonthly).toBeCloseTo(2 * 40 * 0.5 * HOURS, 6);
    expect(cost.shards[0].managers).toMatchObject({ hourly: 0.01, source: "model" });
    expect(cost.shards[1].managers).toMatchObject({ hourly: table.hourly.google["europe-west4"]["e2-standard-4"], source: "table" });
  });
});

describe("the capacity summary", () => {
  const noChanges = { source: "synth", hasChanges: false, counts: { add: 0, change: 0, replace: 0, destroy: 0, forget: 0 }, byShard: [], outputs: [], resources: [] } as unknown as ChangeSummary;

  it("shows each shard's monthly estimate in text and Markdown, and unknown prices as unknown", () => {
    const model = modelWith("cell-1", (m) => {
      m.shards[1].workers.machine_type = "n2d-custom-12-49152";
    });
    const summary = cellChangeSummary(model, noChanges);

    const text = renderSummaryText(summary);
    const markdown = renderSummaryMarkdown(summary);

    const small = summary.capacity.cost.shards[0];
    const money = (amount: number) => `$${amount.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
    // Every price with its source and date; the unpriced custom type is not among them.
    expect(text).toContain(`prices: e2-standard-2, n2d-standard-2, e2-standard-4 from data/prices.json, as of ${table.as_of}\n`);
    expect(text).toMatch(new RegExp(`small-amd64 .*2 × e2-standard-2: \\${money(2 * table.hourly.google["europe-west4"]["e2-standard-2"] * HOURS)}`));
    expect(text).toContain(money(small.monthly.max!));
    expect(text).toMatch(/large-amd64 .*n2d-custom-12-49152: unknown/);
    expect(text).toContain("unpriced: n2d-custom-12-49152 (workers of shard large-amd64) in europe-west4");
    expect(text).not.toMatch(/n2d-custom-12-49152: \$0\.00/);
    expect(markdown).toContain("| Shard | Managers | Workers at idle | Workers at max | Month at idle | Month at max |");
    const priced = summary.capacity.cost.priced;
    expect(markdown).toContain(`| **Total** |  |  |  | **unknown: at least ${money(priced.idle)} priced** | **unknown: at least ${money(priced.max)} priced** |`);
    expect(text).toMatch(new RegExp(`total .*unknown: at least \\${money(priced.max)} priced`));
  });
});

describe("provision --dry-run --json", () => {
  it("carries the cost estimate of every shard and the cell", () => {
    const result = runBin("provision", ["--model", "cell-2", "--dry-run", "--json"], { env: { ...process.env, GITLAB_TOKEN: "" } });

    expect(result.status).toBe(0);
    const report = JSON.parse(result.stdout);
    const cost = report.cells[0].summary.capacity.cost;
    const prices = table.hourly.aws["eu-west-1"];
    const maxMonthly = 2 * prices["t3.medium"] * HOURS + 100 * prices["m7i.large"] * (1 - table.spot_discount.aws) * HOURS;
    expect(cost).toMatchObject({ currency: "USD", hoursPerMonth: HOURS, cloud: "aws", region: "eu-west-1", prices: { asOf: table.as_of, file: "data/prices.json" }, unpriced: [] });
    expect(cost.shards.map((shard: { shard: string }) => shard.shard)).toEqual(["spot-amd64"]);
    expect(cost.total.max).toBeCloseTo(maxMonthly, 4);
    expect(cost.total.idle).toBeGreaterThan(2 * prices["t3.medium"] * HOURS);
    expect(cost.total.idle).toBeLessThan(cost.total.max);
  });
});

describe("the review's cost change", () => {
  it("reads a new cell as none before, and says nothing when nothing moved", () => {
    expect(describeCostChange({ cell: "cell-9", before: null, after: { idle: 100, max: 1234.5 }, unpriced: [] }, formatMoney)).toBe(
      "monthly cost estimate (the dry run's) none → $100.00 at idle capacity, none → $1,234.50 at maximum",
    );
    expect(describeCostChange({ cell: "cell-1", before: { idle: 1, max: 2 }, after: { idle: 1, max: 2 }, unpriced: [] }, formatMoney)).toBeUndefined();
    expect(describeCostChange({ cell: "cell-1", before: null, after: null, unpriced: [] }, formatMoney)).toBeUndefined();
    // A move to a region the table does not price reads "unknown", never $0.00 (a saving it is not).
    expect(describeCostChange({ cell: "cell-1", before: { idle: 775.74, max: 2 }, after: { idle: null, max: null }, unpriced: ["x"] }, formatMoney)).toBe(
      "monthly cost estimate (the dry run's) $775.74 → unknown at idle capacity, $2.00 → unknown at maximum",
    );
    // A partly priced side says that its figure is the priced part, beside "unknown".
    expect(describeCostChange({ cell: "cell-1", before: { idle: 1, max: 2 }, after: { idle: null, max: null, pricedPart: { idle: 3, max: 4 } }, unpriced: ["x"] }, formatMoney)).toBe(
      "monthly cost estimate (the dry run's) $1.00 → unknown (priced part $3.00) at idle capacity, $2.00 → unknown (priced part $4.00) at maximum",
    );
    // Where the prices came from, with their dates, follows the figures.
    expect(
      describeCostChange({ cell: "cell-1", before: { idle: 1, max: 2 }, after: { idle: 3, max: 4 }, unpriced: [], prices: ["m7i.large from AWS Price List Query API (GetProducts), as of 2026-11-29"] }, formatMoney),
    ).toBe("monthly cost estimate (the dry run's) $1.00 → $3.00 at idle capacity, $2.00 → $4.00 at maximum (prices: m7i.large from AWS Price List Query API (GetProducts), as of 2026-11-29)");
    // Unknown on both sides, alike: nothing to say.
    expect(describeCostChange({ cell: "cell-1", before: { idle: null, max: null }, after: { idle: null, max: null }, unpriced: ["x"] }, formatMoney)).toBeUndefined();
  });
});
