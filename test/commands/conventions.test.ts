/**
 * The conventions every command shares: --version and one format for defaults in --help,
 * checked through the real bin/* executables, whose --help also loads no GitLab client and no
 * cloud SDK (test/support/record-loaded-modules.js, as test/cli/command-bundles.test.ts checks a
 * dry run); --model repeated (acted on by every command), suggestions for a missing model, and
 * prepare --json printing the resolved model, checked in process through the same runCli path.
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "yaml";
import { withDerivedDefaults } from "../../lib/model/derived-defaults";
import { runnerDescription, shardImages } from "../../lib/model/names";
import { runnerModelSchema } from "../../lib/model/schema";
import { REPO_ROOT, runBin, runInProcess, STACK_TRACE_LINE } from "../support/cli";
import { MODELS_DIR } from "../support/models";

const COMMANDS = ["prepare", "onboard", "provision", "review", "status", "import", "init", "simulate", "gate"] as const;
const RECORD_LOADED_MODULES = join(REPO_ROOT, "test", "support", "record-loaded-modules.js");
const PACKAGE_VERSION = (JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as { version: string }).version;

let modelsDir: string;
beforeEach(() => {
  modelsDir = mkdtempSync(join(tmpdir(), "conventions-models-"));
  for (const name of ["cell-1.yaml", "cell-2.yaml"]) copyFileSync(join(MODELS_DIR, name), join(modelsDir, name));
});
afterEach(() => rmSync(modelsDir, { recursive: true, force: true }));

/** The command whose --version runs through its executable: the others' print through the same commander version(). */
const VERSION_THROUGH_EXECUTABLE = "provision";

describe.each(COMMANDS)("bin/%s", (command) => {
  // --version through an executable proves the printing and the exit; each command's own executable is
  // run (for --help) below, so the other commands' --version, and -V (the same option of the same
  // command, commander's version()), are checked in process, through the path bin/* takes.
  it("prints the package version with --version and -V", async () => {
    const long = command === VERSION_THROUGH_EXECUTABLE ? runBin(command, ["--version"]) : await runInProcess(command, ["--version"]);
    expect(long.status).toBe(0);
    expect(long.stdout).toBe(`${PACKAGE_VERSION}\n`);
    const short = await runInProcess(command, ["-V"]);
    expect(short.status).toBe(0);
    expect(short.stdout).toBe(`${PACKAGE_VERSION}\n`);
  });

  it("writes every default in --help as a trailing (default: value), unquoted; --help loads no GitLab client and no cloud SDK", () => {
    // The client loads when the first one is built (lib/gitlab/load-client.ts): what --help needs never sends a request.
    const result = runBin(command, ["--help"], { nodeArgs: ["--require", RECORD_LOADED_MODULES] });
    expect(result.status).toBe(0);
    expect(result.stdout).toContain(`Usage: ${command} [options]`);
    expect(result.stderr).toBe("GitLab client built-ins: []\nSDK modules loaded: []\n");
    const help = result.stdout.replace(/\s+/g, " ");
    const mentions = [...help.matchAll(/\bdefault\b.{0,3}/gi)].map((match) => ({ text: match[0], before: help.slice(Math.max(0, match.index - 2), match.index) }));
    expect(mentions.length).toBeGreaterThan(0);
    const offFormat = mentions.filter(({ text, before }) => !/^default: [^"]/.test(text) || !/(\(|, )$/.test(before));
    expect(offFormat).toEqual([]);
  });
});

describe("--model", () => {
  it("acts on every model named when repeated (onboard --dry-run, no token: nothing asked)", async () => {
    const result = await runInProcess("onboard", ["--models-dir", modelsDir, "--model", "cell-2", "--model", "cell-1", "--dry-run", "--json"], {
      env: { ...process.env, GITLAB_TOKEN: "" },
    });
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout).cells.map((cell: { cell: string }) => cell.cell)).toEqual(["cell-2", "cell-1"]);
  });

  it("acts on every model named when repeated (prepare)", async () => {
    const result = await runInProcess("prepare", ["--models-dir", modelsDir, "--model", "cell-2", "--model", "cell-1", "--json"]);
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout).models.map((model: { cell: string }) => model.cell)).toEqual(["cell-2", "cell-1"]);
  });

  it("acts on every model named when repeated (provision --dry-run)", async () => {
    const out = mkdtempSync(join(tmpdir(), "conventions-out-"));
    try {
      const result = await runInProcess("provision", ["--models-dir", modelsDir, "--model", "cell-1", "--model", "cell-2", "--dry-run", "--out", out, "--json"]);
      expect(result.status).toBe(0);
      expect(JSON.parse(result.stdout).cells.map((cell: { cell: string }) => cell.cell)).toEqual(["cell-1", "cell-2"]);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 120_000);
});

describe("a missing model", () => {
  it.each([
    ["onboard", ["--model", "cel-1", "--dry-run"]],
    ["prepare", ["--model", "cel-1"]],
    ["provision", ["--model", "cel-1", "--dry-run"]],
    ["status", ["--model", "cel-1"]],
  ] as const)("%s suggests the closest names and lists the models", async (command, args) => {
    const result = await runInProcess(command, ["--models-dir", modelsDir, ...args]);
    expect(result.status).toBe(2);
    const output = result.stdout + result.stderr;
    expect(output).toContain(`${join(modelsDir, "cel-1.yaml")}:1:1`);
    expect(output).toContain(`did you mean cell-1 or cell-2? models in ${modelsDir}: cell-1, cell-2`);
    expect(output).not.toMatch(STACK_TRACE_LINE);
  });

  it("suggests nothing when no name is close, but still lists the models", async () => {
    const result = await runInProcess("prepare", ["--models-dir", modelsDir, "--model", "production-eu"]);
    expect(result.status).toBe(2);
    expect(result.stdout).toContain(`(models in ${modelsDir}: cell-1, cell-2)`);
    expect(result.stdout).not.toContain("did you mean");
  });
});

describe("prepare --model X --json", () => {
  it("prints the resolved model: the file's values plus every default, derived ones included", async () => {
    // A model that leaves out the runner description, the images and the state backend.
    const text = readFileSync(join(modelsDir, "cell-2.yaml"), "utf8").replace(/^    description: .*\n/m, "").replace(/^state:\n(?:  .*\n)+/m, "");
    writeFileSync(join(modelsDir, "cell-2.yaml"), text);
    const result = await runInProcess("prepare", ["--models-dir", modelsDir, "--model", "cell-2", "--json"]);
    expect(result.status).toBe(0);
    const [report] = JSON.parse(result.stdout).models;
    const written = parse(text);
    expect(written.state).toBeUndefined();
    expect(written.shards[0].description).toBeUndefined();
    expect(written.shards[0].managers.image).toBeUndefined();

    // What the loader fills in from the schema...
    expect(report.resolved.secrets.local_dir).toBe(".state/secrets");
    // ...and what depends on other values: the same functions the stack and onboarding use. cell-2's workers run
    // five jobs each (max_use_count 5), so their pulls never fall back to the cache (lib/model/pull-policy.ts).
    expect(report.resolved.shards[0].docker.pull_policy).toEqual(["always"]);
    const model = runnerModelSchema.parse(written);
    expect(report.resolved.shards[0].description).toBe(runnerDescription(model, model.shards[0]));
    expect(report.resolved.shards[0].description).toBe("cell-2-spot-amd64");
    expect(report.resolved.shards[0].managers.image).toBe(shardImages(model, model.shards[0]).managers);
    expect(report.resolved.shards[0].managers.image).toMatch(/ubuntu.*24\.04/);
    expect(report.resolved.state).toEqual({ backend: "local", path: ".state/terraform/cell-2.tfstate" });
    expect(report.resolved).toEqual(JSON.parse(JSON.stringify(withDerivedDefaults(model))));
  });
});
