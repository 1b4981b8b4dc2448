import { UserInputError } from "../../lib/process/errors";
import { changedCells, isSharedCode, modelCellOf } from "../../lib/review/changed-cells";
import { createTempRepo, type TempRepo } from "./review-temp-repo";

describe("changedCells", () => {
  let repo: TempRepo;
  let base: string;

  beforeEach(() => {
    repo = createTempRepo({
      "models/cell-1.yaml": "machine_type: e2-small\n",
      "models/cell-2.yaml": "machine_type: e2-small\n",
      "models/schema.json": "{}\n",
      "lib/stack.ts": "export const x = 1;\n",
      "templates/ci/cells.gitlab-ci.yml.hbs": "stages: []\n",
      "README.md": "# models\n",
    });
    base = repo.git("rev-parse", "HEAD").trim();
  });
  afterEach(() => repo.cleanup());

  it("plans only the cell whose model changed", async () => {
    repo.write("models/cell-1.yaml", "machine_type: e2-medium\n");
    repo.commit("bigger managers for cell-1");

    const result = await changedCells({ base, cwd: repo.dir });

    expect(result.cells.map((cell) => cell.cell)).toEqual(["cell-1"]);
    expect(result.cells[0].reasons).toEqual(["models/cell-1.yaml changed"]);
    expect(result.removed).toEqual([]);
  });

  it("plans a new cell as added", async () => {
    repo.write("models/cell-3.yaml", "machine_type: e2-small\n");
    repo.commit("cell-3");

    const result = await changedCells({ base, cwd: repo.dir });

    expect(result.cells).toEqual([{ cell: "cell-3", file: "models/cell-3.yaml", reasons: ["models/cell-3.yaml added"] }]);
  });

  it("plans every cell when shared code changed", async () => {
    repo.write("lib/stack.ts", "export const x = 2;\n");
    repo.commit("shared change");

    const result = await changedCells({ base, cwd: repo.dir });

    expect(result.cells.map((cell) => cell.cell)).toEqual(["cell-1", "cell-2"]);
    expect(result.cells[0].reasons[0]).toMatch(/^shared code changed \(lib\/stack\.ts\)$/);
    expect(result.sharedFiles).toEqual(["lib/stack.ts"]);
  });

  it("plans no cell for a README, a pipeline template or the schema", async () => {
    repo.write("README.md", "# models, documented\n");
    repo.write("templates/ci/cells.gitlab-ci.yml.hbs", "stages: [plan]\n");
    repo.write("models/schema.json", '{"a":1}\n');
    repo.commit("docs and CI");

    const result = await changedCells({ base, cwd: repo.dir });

    expect(result.cells).toEqual([]);
    expect(result.ignoredFiles).toEqual(["README.md", "models/schema.json", "templates/ci/cells.gitlab-ci.yml.hbs"]);
  });

  it("reports a deleted model as removed and never plans it, even with shared code changed", async () => {
    repo.remove("models/cell-2.yaml");
    repo.write("package.json", "{}\n");
    repo.commit("retire cell-2");

    const result = await changedCells({ base, cwd: repo.dir });

    expect(result.removed).toEqual([{ cell: "cell-2", file: "models/cell-2.yaml", reason: "models/cell-2.yaml deleted" }]);
    expect(result.cells.map((cell) => cell.cell)).toEqual(["cell-1"]);
  });

  it("counts uncommitted and untracked changes of the working tree", async () => {
    repo.write("models/cell-2.yaml", "machine_type: e2-large\n");
    repo.write("models/cell-9.yaml", "machine_type: e2-small\n");

    const result = await changedCells({ base, cwd: repo.dir });

    expect(result.cells.map((cell) => [cell.cell, cell.reasons[0]])).toEqual([
      ["cell-2", "models/cell-2.yaml changed"],
      ["cell-9", "models/cell-9.yaml added"],
    ]);
  });

  it("compares with merge-base semantics: changes on the base branch after the fork are not the MR's", async () => {
    repo.git("checkout", "--quiet", "-b", "feature");
    repo.write("models/cell-1.yaml", "machine_type: e2-medium\n");
    repo.commit("feature change");
    repo.git("checkout", "--quiet", "main");
    repo.write("models/cell-2.yaml", "machine_type: e2-highcpu-4\n");
    repo.commit("main moved on");
    repo.git("checkout", "--quiet", "feature");

    const result = await changedCells({ base: "main", cwd: repo.dir });

    expect(result.cells.map((cell) => cell.cell)).toEqual(["cell-1"]);
  });

  it("compares two refs when a head ref is given, ignoring the working tree", async () => {
    repo.write("models/cell-1.yaml", "machine_type: e2-medium\n");
    const head = repo.commit("change");
    repo.write("models/cell-2.yaml", "uncommitted: true\n");

    const result = await changedCells({ base, head, cwd: repo.dir });

    expect(result.cells.map((cell) => cell.cell)).toEqual(["cell-1"]);
    expect(result.head).toBe(head);
  });

  it("fails when the base ref does not exist, naming it", async () => {
    await expect(changedCells({ base: "no-such-branch", cwd: repo.dir })).rejects.toThrow(UserInputError);
    await expect(changedCells({ base: "no-such-branch", cwd: repo.dir })).rejects.toThrow(/"no-such-branch"/);
  });
});

describe("path classification", () => {
  it("knows models, shared code and the rest", () => {
    expect(modelCellOf("models/cell-7.yaml", "models")).toBe("cell-7");
    expect(modelCellOf("models/cell-7.yml", "models")).toBe("cell-7");
    expect(modelCellOf("models/sub/cell-7.yaml", "models")).toBeUndefined();
    expect(modelCellOf("other/cell-7.yaml", "models")).toBeUndefined();
    expect(["constructs/google/x.ts", "stacks/cell-stack.ts", "app/cdktf-app.ts", "templates/config.toml.hbs", "package-lock.json", "cdktf.json"].every(isSharedCode)).toBe(true);
    expect(["templates/ci/trigger-runner-fleet.yml", "templates/runner-fleet.yml", ".gitlab-ci.yml", "test/x.test.ts", "docs/a.md", "bin/review"].some(isSharedCode)).toBe(false);
  });
});
