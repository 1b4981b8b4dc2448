import { chmodSync, mkdtempSync, rmSync, writeFileSync, copyFileSync, readFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runBin, runInProcess } from "../support/cli";
import { MODELS_DIR } from "../support/models";

/** A directory holding a fake `terraform` that answers `version -json` with the given version. */
function fakeEngineDir(version: string): string {
  const dir = mkdtempSync(join(tmpdir(), "fake-engine-"));
  const script = join(dir, "terraform");
  writeFileSync(script, `#!/bin/sh\necho '{"terraform_version":"${version}","platform":"linux_amd64"}'\n`);
  chmodSync(script, 0o755);
  return dir;
}

/** PATH with node but without any real terraform/tofu. */
function pathWithout(extra?: string): string {
  return [extra, join(process.execPath, ".."), "/usr/bin", "/bin"].filter(Boolean).join(":");
}

// The executable runs once per exit code (0, 1, 2); the other cases go through the same command line and
// error handler in this process, as a process costs ~0.3 CPU-s.
describe("bin/prepare", () => {
  let modelsDir: string;
  beforeEach(() => {
    modelsDir = mkdtempSync(join(tmpdir(), "prepare-models-"));
    for (const name of ["cell-1.yaml", "cell-2.yaml"]) copyFileSync(join(MODELS_DIR, name), join(modelsDir, name));
  });
  afterEach(() => rmSync(modelsDir, { recursive: true, force: true }));

  it("validates every model of the directory and writes the schema (--json)", () => {
    const engineDir = fakeEngineDir("1.11.4");
    const result = runBin("prepare", ["--models-dir", modelsDir, "--json"], { env: { ...process.env, PATH: pathWithout(engineDir) } });
    expect(result.status).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report.models.map((model: { cell: string; valid: boolean }) => [model.cell, model.valid])).toEqual([
      ["cell-1", true],
      ["cell-2", true],
    ]);
    expect(report.toolchain.engine).toEqual({ name: "terraform", version: "1.11.4", supported: true });
    expect(report.toolchain.node.supported).toBe(true);
    expect(readFileSync(join(modelsDir, "schema.json"), "utf8")).toBe(readFileSync(join(MODELS_DIR, "schema.json"), "utf8"));
  });

  it("takes --model as a bare name looked up in the models directory", async () => {
    const result = await runInProcess("prepare", ["--models-dir", modelsDir, "--model", "cell-2", "--json"]);
    const report = JSON.parse(result.stdout);
    expect(report.models).toHaveLength(1);
    expect(report.models[0].cell).toBe("cell-2");
  });

  it("warns but succeeds when no engine is installed: only dry runs are possible", async () => {
    const result = await runInProcess("prepare", ["--models-dir", modelsDir], { env: { ...process.env, PATH: pathWithout() } });
    expect(result.status).toBe(0);
    expect(result.stdout).toContain("only --dry-run provisioning is possible");
  });

  it("fails with exit 1 when --require-engine and no engine is installed", () => {
    const result = runBin("prepare", ["--models-dir", modelsDir, "--require-engine", "--json"], { env: { ...process.env, PATH: pathWithout() } });
    expect(result.status).toBe(1);
    expect(JSON.parse(result.stdout).problems[0]).toContain("no terraform or tofu >= 1.5.0");
  });

  it("fails with exit 1 when --require-engine and the engine is older than 1.5", async () => {
    const engineDir = fakeEngineDir("1.4.7");
    const result = await runInProcess("prepare", ["--models-dir", modelsDir, "--require-engine"], { env: { ...process.env, PATH: pathWithout(engineDir) } });
    expect(result.status).toBe(1);
    expect(result.stdout).toContain("terraform 1.4.7 (needs >= 1.5.0)");
  });

  it("fails with exit 2 on an unknown option, without touching the models directory", () => {
    const result = runBin("prepare", ["--models-dir", modelsDir, "--modle", "cell-1"]);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain("unknown option '--modle'");
    expect(existsSync(join(modelsDir, "schema.json"))).toBe(false);
  });

  it("prints help with the trigger variables and exit codes", async () => {
    const result = await runInProcess("prepare", ["--help"]);
    expect(result.status).toBe(0);
    expect(result.stdout).toContain("--generate");
    expect(result.stdout).toContain("CELL_ID");
    expect(result.stdout).toContain("Exit codes");
  });
});
