/**
 * Models anywhere (issue 22): what the commands write without being told where (cdktf.out/, the
 * local state, the local secret store, the cell locks) lands in the workspace, the directory that
 * holds the models directory in force (lib/files/workspace.ts), whichever directory a run starts in.
 * Each run starts in an empty directory elsewhere and names the models by --models-dir or
 * $RUNNER_MODELS_DIR; that directory must stay empty. Each command runs once as its executable (with
 * --models-dir); the other runs go through the same command line and error handler in this process,
 * in the directory they name (runInProcess changes to it), as a process costs ~0.3 CPU-s.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defaultSynthOutDir, workspaceDir } from "../../lib/files/workspace";
import { stateDirectory, STATE_DIR_ENV } from "../../lib/state/cell-lock";
import { REPO_ROOT, runBin, runBinAsync, runInProcess } from "../support/cli";
import { useFakeGitLab } from "../support/fake-gitlab-setup";
import { writeFleet } from "../support/fleet-models";
import { MODELS_DIR } from "../support/models";

const gitlab = useFakeGitLab();

/** The environment of a user who set neither variable: each test adds what it means. */
function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  if (!("RUNNER_MODELS_DIR" in extra)) delete env.RUNNER_MODELS_DIR;
  delete env[STATE_DIR_ENV];
  delete env.CDKTF_OUTDIR;
  return env;
}

function emptyDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** A copy of the examples, with the default (relative) local state and secret store. */
function fleetWithRelativePaths() {
  return writeFleet(gitlab.fake, [
    { id: "cell-1", from: "cell-1", edit: (text) => text.replace(/^  local_dir: .*\n/m, "") },
    { id: "cell-2", from: "cell-2", edit: (text) => text.replace(/^  local_dir: .*\n/m, "") },
  ]);
}

/** An example model with local state (the examples keep theirs in buckets), at `path` when given. */
function localStateModel(cell: "cell-1" | "cell-2", path?: string): string {
  const text = readFileSync(join(MODELS_DIR, `${cell}.yaml`), "utf8").replace(/^state:\n(  .*\n)+/m, `state:\n  backend: local\n${path ? `  path: ${path}\n` : ""}`);
  expect(text).toContain("  backend: local\n");
  return text;
}

function localBackendPath(stackJson: string): string {
  return (JSON.parse(readFileSync(stackJson, "utf8")) as { terraform: { backend: { local: { path: string } } } }).terraform.backend.local.path;
}

describe("workspaceDir", () => {
  const saved = { cwd: process.cwd(), env: process.env.RUNNER_MODELS_DIR };
  afterEach(() => {
    process.chdir(saved.cwd);
    if (saved.env === undefined) delete process.env.RUNNER_MODELS_DIR;
    else process.env.RUNNER_MODELS_DIR = saved.env;
  });

  it("is the current directory with the default ./models, the parent of --models-dir or $RUNNER_MODELS_DIR otherwise (the flag wins)", () => {
    const here = emptyDir("ws-here-");
    process.chdir(here);
    delete process.env.RUNNER_MODELS_DIR;
    expect(workspaceDir()).toBe(process.cwd());
    expect(workspaceDir("/srv/fleet/models")).toBe("/srv/fleet");
    expect(workspaceDir("infra/models")).toBe(join(process.cwd(), "infra"));
    process.env.RUNNER_MODELS_DIR = "/srv/other/models";
    expect(workspaceDir()).toBe("/srv/other");
    expect(workspaceDir("/srv/fleet/models/")).toBe("/srv/fleet");
    expect(defaultSynthOutDir("/srv/fleet")).toBe("/srv/fleet/cdktf.out");
  });

  it("is the current directory itself when the models are kept there (--models-dir .): never its parent, outside the repository", () => {
    const here = emptyDir("ws-dot-");
    process.chdir(here);
    expect(workspaceDir(".")).toBe(process.cwd());
    expect(workspaceDir(process.cwd())).toBe(process.cwd());
    process.env.RUNNER_MODELS_DIR = ".";
    expect(workspaceDir()).toBe(process.cwd());
  });

  it("puts the locks in .state of the workspace, while $RUNNER_FLEET_STATE_DIR stays relative to the current directory", () => {
    expect(stateDirectory({}, "/srv/fleet", "/home/me")).toBe("/srv/fleet/.state");
    expect(stateDirectory({ [STATE_DIR_ENV]: "shared-state" }, "/srv/fleet", "/home/me")).toBe("/home/me/shared-state");
    expect(stateDirectory({ [STATE_DIR_ENV]: "/var/lib/fleet" }, "/srv/fleet", "/home/me")).toBe("/var/lib/fleet");
  });
});

describe("provision --dry-run from another directory", () => {
  it.each([
    ["--models-dir", (models: string) => ({ args: ["--models-dir", models], env: cleanEnv() })],
    ["$RUNNER_MODELS_DIR", (models: string) => ({ args: [], env: cleanEnv({ RUNNER_MODELS_DIR: models }) })],
  ])("with %s writes cdktf.out and points the local state into the workspace, nothing into the current directory", async (how, given) => {
    const workspace = emptyDir("ws-provision-");
    const models = join(workspace, "models");
    mkdirSync(models);
    for (const cell of ["cell-1", "cell-2"] as const) writeFileSync(join(models, `${cell}.yaml`), localStateModel(cell));
    const elsewhere = emptyDir("ws-cwd-");
    const { args, env } = given(models);

    const provisionArgs = ["--dry-run", "--model", "cell-1", "--model", "cell-2", ...args];
    const result = how === "--models-dir" ? runBin("provision", provisionArgs, { cwd: elsewhere, env }) : await runInProcess("provision", provisionArgs, { cwd: elsewhere, env });

    expect(result.stderr).not.toContain("error");
    expect(result.status).toBe(0);
    for (const cell of ["cell-1", "cell-2"]) {
      const stackJson = join(workspace, "cdktf.out", "stacks", cell, "cdk.tf.json");
      expect(existsSync(stackJson)).toBe(true);
      expect(localBackendPath(stackJson)).toBe(join(workspace, ".state", "terraform", `${cell}.tfstate`));
    }
    expect(readdirSync(elsewhere)).toEqual([]);
  });

  it("keeps an --out a person types relative to the current directory", async () => {
    const workspace = emptyDir("ws-out-");
    mkdirSync(join(workspace, "models"));
    writeFileSync(join(workspace, "models", "cell-1.yaml"), localStateModel("cell-1"));
    const elsewhere = emptyDir("ws-cwd-");

    const result = await runInProcess("provision", ["--dry-run", "--model", "cell-1", "--models-dir", join(workspace, "models"), "--out", "synth"], { cwd: elsewhere, env: cleanEnv() });

    expect(result.status).toBe(0);
    expect(existsSync(join(elsewhere, "synth", "stacks", "cell-1", "cdk.tf.json"))).toBe(true);
    expect(localBackendPath(join(elsewhere, "synth", "stacks", "cell-1", "cdk.tf.json"))).toBe(join(workspace, ".state", "terraform", "cell-1.tfstate"));
    expect(existsSync(join(workspace, "cdktf.out"))).toBe(false);
  });

  it("resolves a relative state.path written in the model against the workspace", async () => {
    const workspace = emptyDir("ws-state-path-");
    mkdirSync(join(workspace, "models"));
    writeFileSync(join(workspace, "models", "cell-1.yaml"), localStateModel("cell-1", "states/one.tfstate"));
    const elsewhere = emptyDir("ws-cwd-");

    const result = await runInProcess("provision", ["--dry-run", "--model", "cell-1", "--models-dir", join(workspace, "models")], { cwd: elsewhere, env: cleanEnv() });

    expect(result.status).toBe(0);
    expect(localBackendPath(join(workspace, "cdktf.out", "stacks", "cell-1", "cdk.tf.json"))).toBe(join(workspace, "states", "one.tfstate"));
    expect(readdirSync(elsewhere)).toEqual([]);
  });
});

describe("a relative gitlab.ca_file", () => {
  const PEM = "-----BEGIN CERTIFICATE-----\nMIIBworkspaceca\n-----END CERTIFICATE-----\n";
  const withCaFile = (text: string) => text.replace(/^gitlab:\n/m, "gitlab:\n  ca_file: certs/gitlab-ca.pem\n");

  /** The workspace's model and an empty directory elsewhere; `pemIn` holds certs/gitlab-ca.pem. */
  function setUp(pemIn: "workspace" | "elsewhere") {
    const workspace = emptyDir("ws-ca-");
    mkdirSync(join(workspace, "models"));
    writeFileSync(join(workspace, "models", "cell-1.yaml"), withCaFile(localStateModel("cell-1")));
    const elsewhere = emptyDir("ws-cwd-");
    mkdirSync(join(pemIn === "workspace" ? workspace : elsewhere, "certs"));
    writeFileSync(join(pemIn === "workspace" ? workspace : elsewhere, "certs", "gitlab-ca.pem"), PEM);
    return { workspace, elsewhere };
  }

  it("is read from the workspace, as the model's other relative paths are: its PEM reaches the managers", async () => {
    const { workspace, elsewhere } = setUp("workspace");

    const result = await runInProcess("provision", ["--dry-run", "--model", "cell-1", "--models-dir", join(workspace, "models")], { cwd: elsewhere, env: cleanEnv() });

    expect(result.stderr).not.toContain("error");
    expect(result.status).toBe(0);
    const rendered = join(workspace, "cdktf.out", "stacks", "cell-1", "rendered");
    const files = readdirSync(rendered, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());
    expect(files.some((entry) => readFileSync(join(entry.parentPath, entry.name), "utf8").includes("MIIBworkspaceca"))).toBe(true);
    // The path is the workspace's, but only the PEM reaches the stack: no machine-specific path in it.
    expect(readFileSync(join(workspace, "cdktf.out", "stacks", "cell-1", "cdk.tf.json"), "utf8")).not.toContain(join(workspace, "certs"));
  });

  it("is not read from the current directory: a PEM only there is refused as missing (exit 2)", async () => {
    const { workspace, elsewhere } = setUp("elsewhere");

    const result = await runInProcess("provision", ["--dry-run", "--model", "cell-1", "--models-dir", join(workspace, "models")], { cwd: elsewhere, env: cleanEnv() });

    expect(result.status).toBe(2);
    expect(result.stderr).toContain("gitlab.ca_file");
    expect(result.stderr).toContain(join(workspace, "certs", "gitlab-ca.pem"));
  });
});

describe("the cdktf app (cdktf synth) with $RUNNER_MODELS_DIR", () => {
  it("without $CDKTF_OUTDIR writes cdktf.out in the workspace, with the workspace's local state", () => {
    const workspace = emptyDir("ws-app-");
    mkdirSync(join(workspace, "models"));
    writeFileSync(join(workspace, "models", "cell-2.yaml"), localStateModel("cell-2"));
    const elsewhere = emptyDir("ws-cwd-");

    const result = spawnSync(process.execPath, [join(REPO_ROOT, "dist", "app", "cdktf-app.js")], {
      cwd: elsewhere,
      env: cleanEnv({ RUNNER_MODELS_DIR: join(workspace, "models") }),
      encoding: "utf8",
      timeout: 60_000,
    });

    expect(result.stderr).toContain("synthesized cell-2");
    expect(result.status).toBe(0);
    expect(localBackendPath(join(workspace, "cdktf.out", "stacks", "cell-2", "cdk.tf.json"))).toBe(join(workspace, ".state", "terraform", "cell-2.tfstate"));
    expect(readdirSync(elsewhere)).toEqual([]);
  });
});

describe("onboard and status from another directory, local store and lock", () => {
  it.each([
    ["--models-dir", (models: string) => ({ args: ["--models-dir", models], env: {} })],
    ["$RUNNER_MODELS_DIR", (models: string) => ({ args: [], env: { RUNNER_MODELS_DIR: models } })],
  ])("with %s keeps the tokens in .state/secrets and the lock in .state/locks of the workspace; status from a third directory finds them", async (how, given) => {
    const fleet = fleetWithRelativePaths();
    const workspace = join(fleet.dir, "..");
    const elsewhere = emptyDir("ws-cwd-");
    const { args, env: extra } = given(fleet.dir);
    const env = cleanEnv({ GITLAB_TOKEN: gitlab.fake.adminToken, ...extra });
    const run = how === "--models-dir" ? runBinAsync : runInProcess;

    const onboarded = await run("onboard", ["--model", "cell-1", ...args, "--json"], { cwd: elsewhere, env });

    expect(onboarded.stderr).not.toContain("error");
    expect(onboarded.status).toBe(0);
    const shards = fleet.models["cell-1"].shards.map((shard) => shard.name);
    expect(readdirSync(join(workspace, ".state", "secrets")).sort()).toEqual(shards.map((shard) => `cell-1--${shard}.json`).sort());
    expect(existsSync(join(workspace, ".state", "locks"))).toBe(true);
    expect(readdirSync(elsewhere)).toEqual([]);

    const third = emptyDir("ws-cwd-");
    const status = await run("status", ["--model", "cell-1", ...args, "--json"], { cwd: third, env });
    // "valid": the token onboard stored was found in the workspace's store and GitLab accepts it ("missing" when looked for elsewhere).
    const report = JSON.parse(status.stdout) as { cells: Array<{ shards: Array<{ shard: string; token: string }> }> };
    expect(report.cells[0].shards.map((shard) => [shard.shard, shard.token]).sort()).toEqual(shards.map((shard) => [shard, "valid"]).sort());
    expect(readdirSync(third)).toEqual([]);
  });
});
