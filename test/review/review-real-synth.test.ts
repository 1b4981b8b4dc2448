import { runReview } from "../../lib/commands/review";
import { createRepoFromCheckout, type TempRepo } from "./review-temp-repo";

describe("review over two refs with the real synth", () => {
  let repo: TempRepo;
  beforeAll(() => {
    // GIVEN a copy of this repository where one commit changes only cell-2's worker limit
    repo = createRepoFromCheckout();
    repo.write("models/cell-2.yaml", repo.read("models/cell-2.yaml").replace("max_instances: 50", "max_instances: 70"));
    repo.commit("cell-2: more workers");
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
  }, 180_000);
});
