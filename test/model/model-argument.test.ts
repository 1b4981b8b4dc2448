/**
 * --model as people type it (issue 37): a name that can mean one model just works; a path or a run
 * that cannot work gets the --model (or the directory) that does, with exit 2 and no stack trace.
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPO_ROOT, runInProcess, STACK_TRACE_LINE } from "../support/cli";

// No engine on PATH: prepare's toolchain check is not what these tests are about.
const ENV = { ...process.env, PATH: "/usr/bin:/bin", RUNNER_MODELS_DIR: "" };
delete (ENV as Record<string, string | undefined>).RUNNER_MODELS_DIR;

describe("prepare --model as people type it", () => {
  let workspace: string;
  beforeAll(() => {
    workspace = mkdtempSync(join(tmpdir(), "model-argument-"));
    mkdirSync(join(workspace, "models"));
    cpSync(join(REPO_ROOT, "models", "cell-1.yaml"), join(workspace, "models", "cell-1.yaml"));
  });
  afterAll(() => rmSync(workspace, { recursive: true, force: true }));

  it.each([["cell-1.yml"], ["CELL-1"], ["models/cell-1.yml"], ["models/Cell-1.YAML"]])("takes %s as cell-1, the one model it can mean", async (argument) => {
    const result = await runInProcess("prepare", ["--model", argument], { cwd: workspace, env: ENV });
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
    expect(result.stdout).toContain("ok      models/cell-1.yaml: cell cell-1 on google");
  });

  it("fails when --model ./cell-1.yaml is run beside models/, naming the --model that works", async () => {
    const result = await runInProcess("prepare", ["--model", "./cell-1.yaml"], { cwd: workspace, env: ENV });
    expect(result.status).toBe(2);
    expect(result.stdout).toContain(
      "./cell-1.yaml:1:1: (top level): expected an existing model file, received no file (there is no cell-1.yaml in .; the models directory has it: --model cell-1 (models/cell-1.yaml))",
    );
    expect(result.stdout + result.stderr).not.toMatch(STACK_TRACE_LINE);
  });

  it("fails when run from inside models/, saying to run from the directory above", async () => {
    const named = await runInProcess("prepare", ["--model", "cell-1"], { cwd: join(workspace, "models"), env: ENV });
    expect(named.status).toBe(2);
    expect(named.stdout).toContain(
      "models/cell-1.yaml:1:1: (top level): expected an existing model file, received no file (cell-1.yaml is in this directory, which looks like the models directory: run from the directory above it (cd ..), where the state and cdktf.out of the models are kept)",
    );
    const all = await runInProcess("prepare", [], { cwd: join(workspace, "models"), env: ENV });
    expect(all.status).toBe(2);
    expect(all.stderr).toContain(
      "models directory models does not exist (set --models-dir or RUNNER_MODELS_DIR); cell-1.yaml is in this directory, which looks like the models directory: run from the directory above it (cd ..)",
    );
  });

  it("still refuses a name two files could mean, listing the models", async () => {
    writeFileSync(join(workspace, "models", "cell-1.yml"), "cell: {}\n");
    try {
      const result = await runInProcess("prepare", ["--model", "CELL-1"], { cwd: workspace, env: ENV });
      expect(result.status).toBe(2);
      expect(result.stdout).toContain("models/CELL-1.yaml:1:1: (top level): expected an existing model file, received no file (cell-1.yaml and cell-1.yml both name a model cell-1: name one with --model models/cell-1.yaml)");
    } finally {
      rmSync(join(workspace, "models", "cell-1.yml"));
    }
  });
});
