import { readFileSync } from "node:fs";
import { join } from "node:path";
import { runReview } from "../../app/commands/review";
import { createRepoFromCheckout, type TempRepo } from "./review-temp-repo";
import { seedCompiledCode } from "./seed-compiled-code";

describe("review over two refs with the real synth", () => {
  let repo: TempRepo;
  beforeAll(async () => {
    // GIVEN a copy of this repository where one commit changes only cell-2's worker limit
    repo = createRepoFromCheckout();
    // (its code compiled as this checkout's dist/, when that is fresh: ./seed-compiled-code.ts)
    await seedCompiledCode(repo);
    // (and goes back to one NAT gateway for the three zones, which the model warns about)
    repo.write("models/cell-2.yaml", repo.read("models/cell-2.yaml").replace("max_instances: 50", "max_instances: 70").replace("nat: per-zone", "nat: true"));
    repo.commit("cell-2: more workers, one NAT");
  }, 120_000);
  afterAll(() => repo.cleanup());

  it("reports exactly that cell, and the worker groups' max_size", async () => {
    // WHEN the review compares the two commits
    const { report, markdown } = await runReview({ cwd: repo.dir, base: "HEAD~1", head: "HEAD" });

    // THEN only cell-2 is planned and changed
    expect(report.changedCells.cells.map((cell) => cell.cell)).toEqual(["cell-2"]);
    const changed = report.diff.cells.filter((cell) => cell.status !== "unchanged").map((cell) => cell.cell);
    expect(changed).toEqual(["cell-2"]);
    const cell2 = report.diff.cells.find((cell) => cell.cell === "cell-2")!;
    const workerGroups = cell2.resources.filter((resource) => resource.address.startsWith("aws_autoscaling_group.") && /workers/i.test(resource.address));
    expect(workerGroups.length).toBe(2);
    for (const group of workerGroups) {
      expect(group.action).toBe("update");
      expect(group.attributes).toEqual(expect.arrayContaining([expect.objectContaining({ path: "max_size", before: "50", after: "70" })]));
    }
    expect(markdown).toContain("cell-2");

    // AND the review shows the model's single-NAT warning with its file:line:col, and the capacity the
    // change leaves unused: 70 workers per manager, but concurrent stays 50 (issue 23's throttling class)
    expect(report.modelWarnings).toEqual([
      {
        cell: "cell-2",
        warnings: [
          expect.stringMatching(/^models\/cell-2\.yaml:\d+:\d+: warning: network\.nat: expected "per-zone" for production/),
          expect.stringMatching(/^models\/cell-2\.yaml:\d+:\d+: warning: shards\[0\]\.managers\.concurrent: .*effective capacity 50 jobs per manager, 100 for the shard's 2 manager\(s\), not 140\), received 50$/),
        ],
      },
    ]);
    expect(markdown).toMatch(/> :warning: Model warning: models\/cell-2\.yaml:\d+:\d+: warning: network\.nat/);

    // AND the cost estimate moves by 2 managers x 20 more spot workers x the spot price, for a month
    const table = JSON.parse(readFileSync(join(repo.dir, "data", "prices.json"), "utf8"));
    const spotHourly = table.hourly.aws["eu-west-1"]["m7i.large"] * (1 - table.spot_discount.aws);
    const [cost] = report.costs!;
    expect(cost.cell).toBe("cell-2");
    expect(cost.after!.max! - cost.before!.max!).toBeCloseTo(2 * 20 * spotHourly * table.hours_per_month, 4);
    expect(cost.after!.idle).toBeCloseTo(cost.before!.idle!, 6);
    // With where its prices came from and their date (cell-2's types are all in the table).
    expect(markdown).toMatch(/Monthly cost estimate \(the dry run's\) \$[\d,.]+ → \$[\d,.]+ at idle capacity, \$[\d,.]+ → \$[\d,.]+ at maximum \(prices: t3\.medium, m7i\.large from data\/prices\.json, as of \d{4}-\d{2}(-\d{2})?\)\./);
  }, 180_000);
});
