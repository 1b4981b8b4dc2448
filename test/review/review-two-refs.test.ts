import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { runReview } from "../../app/commands/review";
import { OperationalError, UserInputError } from "../../lib/process/errors";
import { REVIEW_MARKER } from "../../lib/review/render-review";
import { SYNTH_CACHE_ENV } from "../../lib/review/synth-cache";
import { synthRef, synthWorkingTree } from "../../lib/review/synth-ref";
import { FakeGitLab } from "../support/fake-gitlab";
import { CHECKOUT_ROOT, createFakeSynthRepo, type TempRepo } from "./review-temp-repo";

const MODEL = (machineType: string) => `project: fleet-prod\nregion: europe-west4\nmachine_type: ${machineType}\n`;

function worktrees(repo: TempRepo): string[] {
  return repo
    .git("worktree", "list", "--porcelain")
    .split("\n")
    .filter((line) => line.startsWith("worktree "));
}

/** What synthRef of `ref` threw (undefined when it succeeded): one synth, every check on its failure. */
function synthFailure(ref: string, repo: TempRepo): Promise<unknown> {
  return synthRef(ref, { cwd: repo.dir }).then(
    () => undefined,
    (error: unknown) => error,
  );
}

describe("review over two refs of a repository (fake synth)", () => {
  let repo: TempRepo;
  let base: string;

  beforeEach(() => {
    repo = createFakeSynthRepo({ "cell-1": MODEL("e2-small"), "cell-2": MODEL("e2-small"), "cell-3": MODEL("e2-small") });
    base = repo.git("rev-parse", "HEAD").trim();
  });
  afterEach(() => repo.cleanup());

  it("reports exactly the cell whose model changed, down to the attribute", async () => {
    repo.write("models/cell-2.yaml", MODEL("e2-standard-4"));
    const head = repo.commit("bigger managers for cell-2");

    const { report, markdown } = await runReview({ cwd: repo.dir, base, head });

    expect(report.diff.summary).toEqual({ added: [], removed: [], changed: ["cell-2"], unchanged: ["cell-1", "cell-3"] });
    const cell = report.diff.cells.find((entry) => entry.cell === "cell-2")!;
    expect(cell.resources).toEqual([
      {
        address: "google_compute_instance_template.manager",
        action: "update",
        constructPath: "cell-2/manager",
        attributes: [{ path: "machine_type", kind: "changed", before: '"e2-small"', after: '"e2-standard-4"' }],
      },
    ]);
    expect(markdown.startsWith(REVIEW_MARKER)).toBe(true);
    expect(markdown).toContain("| ~ | `manager` <sub>google_compute_instance_template</sub> |");
  });

  it("reviews the working tree, uncommitted changes included, and leaves it untouched", async () => {
    repo.write("models/cell-1.yaml", MODEL("e2-medium"));

    const { report } = await runReview({ cwd: repo.dir, base });

    expect(report.diff.summary.changed).toEqual(["cell-1"]);
    expect(repo.read("models/cell-1.yaml")).toBe(MODEL("e2-medium"));
    expect(repo.git("status", "--porcelain").trim()).toBe("M models/cell-1.yaml");
    expect(worktrees(repo)).toHaveLength(1);
  });

  it("synthesizes only the changed cells with changedOnly", async () => {
    repo.write("models/cell-3.yaml", MODEL("e2-medium"));
    repo.write("models/cell-4.yaml", MODEL("e2-small"));
    const head = repo.commit("cell-3 change, cell-4 new");

    const { report } = await runReview({ cwd: repo.dir, base, head, changedOnly: true });

    expect(report.diff.cells.map((cell) => [cell.cell, cell.status])).toEqual([
      ["cell-3", "changed"],
      ["cell-4", "added"],
    ]);
  });

  it("reports a deleted model as not destroyed", async () => {
    repo.remove("models/cell-3.yaml");
    const head = repo.commit("retire cell-3");

    const { report, markdown } = await runReview({ cwd: repo.dir, base, head });

    expect(report.changedCells.removed.map((entry) => entry.cell)).toEqual(["cell-3"]);
    expect(markdown).toContain("**not planned for destroy**");
  });

  it("plans every cell when shared code changed", async () => {
    repo.write("lib/shared.txt", "v2\n");
    const head = repo.commit("shared change");

    const { report } = await runReview({ cwd: repo.dir, base, head });

    expect(report.diff.summary.changed).toEqual(["cell-1", "cell-2", "cell-3"]);
    expect(report.changedCells.cells.every((cell) => cell.reasons[0].startsWith("shared code changed"))).toBe(true);
  });

  it("shows the rollout of a change to several cells, by rollout.yaml beside the models; none for one cell", async () => {
    repo.write("rollout.yaml", "waves:\n  - { name: first, cells: [cell-3] }\n");
    repo.write("models/cell-1.yaml", MODEL("e2-medium"));
    repo.write("models/cell-3.yaml", MODEL("e2-medium"));
    const head = repo.commit("two cells");

    const { report, markdown } = await runReview({ cwd: repo.dir, base, head, changedOnly: true });

    expect(report.rollout?.waves.map((wave) => [wave.name, wave.cells])).toEqual([["first", ["cell-3"]], ["rest", ["cell-1"]]]);
    expect(markdown).toContain("#### Rollout: 2 waves (`rollout.yaml`)");
    repo.write("models/cell-2.yaml", MODEL("e2-medium"));
    const one = await runReview({ cwd: repo.dir, base: head, changedOnly: true });
    expect(one.report.rollout).toBeUndefined();
  });

  it("removes its temporary worktree even when the synth fails", async () => {
    repo.write("models/cell-1.yaml", "invalid: true\n");
    const head = repo.commit("broken model");

    const failure = await synthFailure(head, repo);

    expect(failure).toBeInstanceOf(UserInputError);
    expect((failure as Error).message).toMatch(/ref "[0-9a-f]{40}" \([0-9a-f]{8}\) failed at step "synth": exit 2\n.*invalid model/);
    expect(worktrees(repo)).toHaveLength(1);
  });

  it("fails when the ref's code does not compile, naming the ref and the step", async () => {
    repo.write("stacks/main.js", "this is not javascript (\n");
    repo.commit("broken synth");

    const failure = await synthFailure("HEAD", repo);

    expect(failure).toBeInstanceOf(OperationalError);
    expect((failure as Error).message).toMatch(/synth of ref "HEAD" \([0-9a-f]{8}\) failed at step "(compile|synth)"/);
    // The compiler's own error, not the files it emitted (the cache has it list them).
    expect((failure as Error).message).toMatch(/failed at step "compile": exit \d+\n(?:.*\n)*.*stacks\/main\.js.*error TS\d+/);
    expect((failure as Error).message).not.toContain("TSFILE: ");
    expect(worktrees(repo)).toHaveLength(1);
  });

  it("posts one note on the merge request and updates it on the next run", async () => {
    const gitlab = new FakeGitLab();
    await gitlab.start();
    gitlab.mergeRequests.addMergeRequest("42", 7);
    try {
      const env = { CI_SERVER_URL: gitlab.url, CI_PROJECT_ID: "42", CI_MERGE_REQUEST_IID: "7", GITLAB_REVIEW_TOKEN: gitlab.adminToken };
      repo.write("models/cell-1.yaml", MODEL("e2-medium"));
      const first = await runReview({ cwd: repo.dir, base, post: true, env });
      repo.write("models/cell-1.yaml", MODEL("e2-highcpu-8"));
      const second = await runReview({ cwd: repo.dir, base, post: true, env });

      expect([first.note?.action, second.note?.action]).toEqual(["created", "updated"]);
      const notes = gitlab.mergeRequests.notes("42", 7);
      expect(notes).toHaveLength(1);
      expect(notes[0].body).toBe(second.markdown);
      expect(notes[0].body).toContain('"e2-highcpu-8"');
    } finally {
      await gitlab.stop();
    }
  });

  it("synthesizes the working tree the same way", async () => {
    const { stacks } = await synthWorkingTree(repo.dir, { cells: ["cell-1"] });

    expect([...stacks.keys()]).toEqual(["cell-1"]);
    expect(existsSync(join(repo.dir, "cdktf.out"))).toBe(false);
  });
});

describe("bin/review", () => {
  let repo: TempRepo;
  let base: string;
  const bin = (args: string[], env: NodeJS.ProcessEnv = {}) =>
    spawnSync(process.execPath, [join(CHECKOUT_ROOT, "bin", "review"), ...args], {
      cwd: repo.dir,
      encoding: "utf8",
      // The run's scratch space and synth cache (test/global-setup.js), and nothing else of the test's environment.
      env: { PATH: process.env.PATH, HOME: process.env.HOME, TMPDIR: process.env.TMPDIR, [SYNTH_CACHE_ENV]: process.env[SYNTH_CACHE_ENV], ...env },
      timeout: 60_000,
    });

  // bin/review runs the command's bundle, which `npm test` builds before the suite runs.
  beforeEach(() => {
    repo = createFakeSynthRepo({ "cell-1": MODEL("e2-small"), "cell-2": MODEL("e2-small") });
    base = repo.git("rev-parse", "HEAD").trim();
  });
  afterEach(() => repo.cleanup());

  it("prints the review and writes the markdown note", () => {
    repo.write("models/cell-1.yaml", MODEL("e2-medium"));
    repo.commit("change");

    const result = bin(["--base", base, "--markdown", "out/review.md"]);

    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
    expect(result.stdout).toContain("cell-1: changed (resources +0 ~1 -0)");
    expect(result.stdout).toContain('machine_type: "e2-small" -> "e2-medium"');
    expect(result.stdout).toContain("no changes: cell-2");
    expect(readFileSync(join(repo.dir, "out", "review.md"), "utf8").split("\n")[0]).toBe(REVIEW_MARKER);
  });

  it("lists the changed cells as JSON", () => {
    repo.write("models/cell-2.yaml", MODEL("e2-medium"));
    repo.commit("change");

    const result = bin(["--changed-cells", "--base", base, "--json"]);

    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout).cells).toEqual([{ cell: "cell-2", file: "models/cell-2.yaml", reasons: ["models/cell-2.yaml changed"] }]);
  });

  it("fails with exit 2 naming the missing CI variables when --post has none", () => {
    const result = bin(["--base", base, "--post"]);

    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/missing CI variables CI_SERVER_URL, CI_PROJECT_ID, CI_MERGE_REQUEST_IID, GITLAB_REVIEW_TOKEN \(or GITLAB_TOKEN\)/);
    expect(result.stderr).not.toMatch(/^\s+at /m);
  });

  it("fails with exit 2 when --base is missing, or --mode or --apply-mode is wrong", () => {
    expect(bin([]).status).toBe(2);
    const wrongMode = bin(["--child-pipeline", "child.yml", "--base", base, "--mode", "destroy"]);
    expect(wrongMode.status).toBe(2);
    expect(wrongMode.stderr).toContain('--mode plan, apply or drift, got "destroy"');
    const wrongApplyMode = bin(["--child-pipeline", "child.yml", "--base", base, "--mode", "apply", "--apply-mode", "Manual"]);
    expect(wrongApplyMode.status).toBe(2);
    expect(wrongApplyMode.stderr).toContain('--apply-mode (APPLY_MODE in the pipeline) must be auto or manual, got "Manual"');
  });

  it("fails with exit 2 on an unknown base ref", () => {
    const result = bin(["--changed-cells", "--base", "no-such-ref"]);

    expect(result.status).toBe(2);
    expect(result.stderr).toContain('git ref "no-such-ref" is not a commit');
  });
});
