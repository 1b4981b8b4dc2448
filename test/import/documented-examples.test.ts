/**
 * GitLab's documented config.toml examples (test/fixtures/config-toml, written after the docs) for
 * docker+machine on AWS and on Google, docker-autoscaler on both, and a Docker host: each imports through the real
 * command line, the model passes prepare, its dry run synthesizes, and no token is in it.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runInProcess, STACK_TRACE_LINE } from "../support/cli";
import { MODELS_DIR } from "../support/models";
import { fixtureText, writeConfig } from "./support";

const EXAMPLES = [
  { fixture: "docker-machine-aws.toml", cloud: "aws", flags: [] },
  { fixture: "docker-machine-google.toml", cloud: "google", flags: [] },
  // The aws fleeting plugin reads its region from the AWS profile, so the file names none.
  { fixture: "docker-autoscaler-aws.toml", cloud: "aws", flags: ["--region", "eu-central-1"] },
  { fixture: "docker-autoscaler-google.toml", cloud: "google", flags: [] },
  // A Docker host names no cloud at all: region and project come from the flags.
  { fixture: "docker-executor.toml", cloud: "google", flags: ["--region", "europe-west4", "--project", "acme-runners-docker"] },
] as const;

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "import-examples-"));
  mkdirSync(join(root, "models"));
  copyFileSync(join(MODELS_DIR, "schema.json"), join(root, "models", "schema.json"));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe.each(EXAMPLES)("$fixture", ({ fixture, cloud, flags }) => {
  it("imports, passes prepare, and its dry run synthesizes; no token lands in the model", async () => {
    const config = writeConfig(fixtureText(fixture), { dir: root });
    const models = join(root, "models");
    const imported = await runInProcess("import", ["--config", config.file, "--cell", "cell-7", "--cloud", cloud, ...flags, "--out", join(models, "cell-7.yaml")], { cwd: root });
    expect(imported.stderr).not.toMatch(STACK_TRACE_LINE);
    expect(imported.status).toBe(0);
    const text = readFileSync(join(models, "cell-7.yaml"), "utf8");
    expect(config.tokens).toHaveLength(1);
    expect(text).not.toContain(config.tokens[0]);
    expect(imported.stdout + imported.stderr).not.toContain(config.tokens[0]);
    // The token is listed as not imported, by its key, never its value.
    expect(text).toMatch(/runners\[0\]\.token: the runner's token is never written into a model/);

    const prepared = await runInProcess("prepare", ["--models-dir", models, "--model", "cell-7"], { cwd: root });
    expect(prepared.stderr + prepared.stdout).not.toContain("error");
    expect(prepared.status).toBe(0);

    const out = join(root, "cdktf.out");
    const dryRun = await runInProcess("provision", ["--models-dir", models, "--model", "cell-7", "--dry-run", "--out", out], { cwd: root });
    expect(dryRun.stderr).not.toMatch(STACK_TRACE_LINE);
    expect(dryRun.status).toBe(0);
    expect(dryRun.stdout).toContain(`cell-7: dry run: nothing was created`);
    expect(existsSync(join(out, "stacks", "cell-7", "cdk.tf.json"))).toBe(true);
  });
});
