import { execSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPO_ROOT } from "../support/cli";

/**
 * `cdktf diff <cell>` and `cdktf deploy <cell>` run the `app` command of cdktf.json with
 * CDKTF_OUTDIR set and then read manifest.json: this is that contract, without the CLI.
 */
describe("cdktf.json app", () => {
  let outdir: string;
  beforeEach(() => {
    outdir = mkdtempSync(join(tmpdir(), "cdktf-app-"));
  });
  afterEach(() => rmSync(outdir, { recursive: true, force: true }));

  const runApp = (env: Record<string, string> = {}) => {
    const { app } = JSON.parse(readFileSync(join(REPO_ROOT, "cdktf.json"), "utf8")) as { app: string };
    execSync(app, { cwd: REPO_ROOT, env: { ...process.env, CDKTF_OUTDIR: outdir, ...env }, stdio: "pipe" });
    return JSON.parse(readFileSync(join(outdir, "manifest.json"), "utf8")) as { stacks: Record<string, { synthesizedStackPath: string }> };
  };

  it("runs precompiled JavaScript with node", () => {
    const { app } = JSON.parse(readFileSync(join(REPO_ROOT, "cdktf.json"), "utf8")) as { app: string };
    expect(app).toMatch(/^node dist\/.+\.js$/);
  });

  it("synthesizes one stack per example cell into the manifest the cdktf CLI reads", () => {
    const manifest = runApp();
    expect(Object.keys(manifest.stacks).sort()).toEqual(["cell-1", "cell-2"]);
    for (const stack of Object.values(manifest.stacks)) {
      expect(JSON.parse(readFileSync(join(outdir, stack.synthesizedStackPath), "utf8")).resource).toBeDefined();
    }
  });

  it("limits synthesis to the cells in RUNNER_MODELS", () => {
    expect(Object.keys(runApp({ RUNNER_MODELS: "cell-2" }).stacks)).toEqual(["cell-2"]);
  });
});
