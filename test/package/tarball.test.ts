/**
 * The package as a team gets it (issue 22): `npm pack` of this checkout installed into an empty
 * directory (test/support/installed-package.ts: offline, from the cache `npm ci` filled), then
 * `npx --no-install runner-fleet init` and `runner-fleet provision --model cell-1 --dry-run` there, and the
 * library example built against the installed package's declarations and synthesized.
 *
 * `npx` runs once, for init: it proves that npx finds the package's executable in the models
 * repository. Every other run starts that executable (node_modules/.bin/runner-fleet) itself, which is
 * what npx runs; npx's own start-up costs as much CPU again as the command (~0.3 s a run).
 *
 * One pack and one install for the whole file (they are most of its time): the tests below read
 * the same installed tree and run in order (init, then what uses its files).
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, relative } from "node:path";
import { toolkitVersion } from "../../lib/files/toolkit-version";
import { toolkitUpgrade } from "../../lib/review/toolkit-upgrade";
import { REPO_ROOT, STACK_TRACE_LINE } from "../support/cli";
import { installOffline, linkPeers, packToolkit, type PackedToolkit } from "../support/installed-package";

const VERSION = toolkitVersion();
/** The commands of `runner-fleet` (bin/commands.js). */
const COMMANDS = Object.keys(require(join(REPO_ROOT, "bin", "commands.js")) as Record<string, unknown>);
let root: string;
let repo: string;
let packed: PackedToolkit;
let installed: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "tarball-"));
  packed = packToolkit(root);
  repo = join(root, "runner-models");
  mkdirSync(repo);
  installOffline(packed, repo);
  installed = join(repo, "node_modules", "runner-fleet");
}, 300_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** `npx --no-install runner-fleet ...` in `cwd`, as a team runs it (init; see above). */
function npx(args: readonly string[], cwd = repo, env: NodeJS.ProcessEnv = process.env) {
  const result = spawnSync("npx", ["--no-install", "runner-fleet", ...args], { cwd, env, encoding: "utf8", timeout: 120_000 });
  if (result.error) throw result.error;
  return result;
}

/** The installed executable run with node directly: what `npx --no-install runner-fleet` runs, without npx's own start-up. */
function bin(args: readonly string[], cwd = repo, env: NodeJS.ProcessEnv = process.env) {
  return spawnSync(process.execPath, [join(repo, "node_modules", ".bin", "runner-fleet"), ...args], { cwd, env, encoding: "utf8", timeout: 120_000 });
}

/** Every file under `dir`, relative to it. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((path) => statSync(join(dir, path)).isFile())
    .sort();
}

/** The version the installed package pins an optional peer at (its package.json peerDependencies). */
function installedPeerVersion(name: string): string {
  return (JSON.parse(readFileSync(join(installed, "package.json"), "utf8")) as { peerDependencies: Record<string, string> }).peerDependencies[name];
}

test("the tarball ships what runs and nothing of the repository's own (tests, fixtures, sources, synth output, source maps)", () => {
  const files = packed.files;
  for (const needed of [
    "package.json",
    "bin/runner-fleet.js",
    "bin/load-command.js",
    "bin/commands.js",
    ...COMMANDS.map((command) => `dist/bundle/${command}.js`),
    "dist/index.js",
    "dist/index.d.ts",
    "dist/data/prices.json",
    "templates/config.toml.hbs",
    "templates/init/model-google.yaml.hbs",
    "scripts/manager/install.sh",
    "scripts/worker/runner-fleet-worker",
    "models/schema.json",
    "CHANGELOG.md",
    "LICENSE", // package.json declares MIT; npm ships the text whatever `files` says
  ]) {
    expect(files).toContain(needed);
  }
  const foreign = files.filter((file) => /^(test|bench|app|lib|stacks|constructs|examples|build|tools|docs|cdktf\.out|dist\/(test|bench|app))\/|\.map$|\.ts$(?<!\.d\.ts)|^models\/.+\.yaml$/.test(file));
  expect(foreign).toEqual([]);
  // Small enough to fetch in a pipeline's every job: measured 4.3 MB on 2026-11-29 with 13 command bundles
  // (gate, prices and pipeline added 1.9 MB unpacked), the bundles most of it; docs/development/performance.md.
  expect(packed.size).toBeLessThan(5 * 1024 * 1024);
});

test("one executable: --version, --help listing every command, an unknown command refused", () => {
  const version = bin(["--version"]);
  expect(version.status).toBe(0);
  expect(version.stdout).toBe(`${VERSION}\n`);

  const help = bin(["--help"]);
  expect(help.status).toBe(0);
  expect(COMMANDS).toEqual(expect.arrayContaining(["init", "prepare", "onboard", "provision", "review", "status"]));
  for (const command of COMMANDS) expect(help.stdout).toMatch(new RegExp(`^  ${command} +\\S`, "m"));

  const provisionHelp = bin(["provision", "--help"]);
  expect(provisionHelp.stdout).toMatch(/^Usage: runner-fleet provision \[options\]/);

  const unknown = bin(["provison"]);
  expect(unknown.status).toBe(2);
  expect(unknown.stderr.split("\n")[0]).toBe(`error: unknown command 'provison' (expected one of: ${COMMANDS.join(", ")})`);
});

test("init, then a dry run of the cell it wrote: output beside the models, nothing written into the package but its code caches", () => {
  const before = filesUnder(installed);
  // The CLI runs without the optional peers (cdktf, constructs, the provider bindings): its bundles hold them.
  expect(["cdktf", "constructs", "@cdktf"].filter((name) => existsSync(join(repo, "node_modules", name)))).toEqual([]);

  // --no-lockfile: init adds the store's SDK to package.json, and writing the lock would ask the registry.
  const init = npx(["init", "--component-project", "platform/runner-fleet", "--no-lockfile"]);
  expect(init.stderr).toBe("");
  expect(init.status).toBe(0);
  expect(init.stdout).toContain(`runner-fleet ${VERSION}: models repository in ${repo}`);
  // npm install wrote package.json and its lockfile: init merged into the first and left the second.
  expect(init.stdout).toMatch(/^ +updated +package\.json$/m);
  expect(init.stdout).toContain("note: package-lock.json left as it is (--no-lockfile)");
  // The SDK of the example's store (Google Secret Manager), an optional peer the install above left out.
  expect(JSON.parse(readFileSync(join(repo, "package.json"), "utf8")).dependencies).toEqual({
    "runner-fleet": `file:${packed.tarball}`,
    "@google-cloud/secret-manager": installedPeerVersion("@google-cloud/secret-manager"),
  });
  expect(readFileSync(join(repo, ".gitlab-ci.yml"), "utf8")).toContain(`component: $CI_SERVER_FQDN/platform/runner-fleet/runner-fleet@${VERSION}`);

  const dryRun = bin(["provision", "--model", "cell-1", "--dry-run"]);
  expect(dryRun.stderr).not.toMatch(STACK_TRACE_LINE);
  expect(dryRun.status).toBe(0);
  const stackDir = join(repo, "cdktf.out", "stacks", "cell-1");
  expect(dryRun.stdout).toContain(`cell-1: dry run: nothing was created; Terraform JSON in ${stackDir}`);
  expect(dryRun.stdout).toContain("+runner_fleet_version");
  const stack = JSON.parse(readFileSync(join(stackDir, "cdk.tf.json"), "utf8"));
  expect(stack.output.runner_fleet_version.value).toBe(VERSION);
  expect(Object.keys(stack.resource)).toEqual(expect.arrayContaining(["google_compute_instance_group_manager", "google_compute_instance_template"]));
  // The managers boot with the scripts shipped in the package (scripts/manager/*).
  expect(readdirSync(join(stackDir, "rendered"))).toEqual(["small-amd64"]);

  const written = filesUnder(installed).filter((file) => !before.includes(file));
  expect(written.length).toBeGreaterThan(0);
  expect(written.filter((file) => !/^dist\/bundle\/\w+\.js\.v8-cache$/.test(file))).toEqual([]);
});

test("models anywhere: the current directory's models/, --models-dir or RUNNER_MODELS_DIR, the schema, cdktf.out and the local state beside those models", () => {
  const elsewhere = join(root, "elsewhere");
  mkdirSync(join(elsewhere, "models"), { recursive: true });
  // Local state (the scaffold's is a bucket): its default path is relative, so where it lands shows.
  const scaffolded = readFileSync(join(repo, "models", "cell-1.yaml"), "utf8");
  const localState = scaffolded.replace(/^state:.*\n(  .*\n)+/m, "state:\n  backend: local\n");
  expect(localState).not.toBe(scaffolded);
  writeFileSync(join(elsewhere, "models", "cell-1.yaml"), localState);
  const empty = join(root, "empty");
  mkdirSync(empty);
  // The installed executable, run from directories without the package (as a global install or a path would).
  const runFrom = (cwd: string, args: readonly string[], env?: NodeJS.ProcessEnv) => bin(args, cwd, env);

  const noModels = runFrom(empty, ["prepare"]);
  expect(noModels.status).toBe(2);
  expect(noModels.stderr).toBe("error: models directory models does not exist (set --models-dir or RUNNER_MODELS_DIR)\n");

  const inCwd = runFrom(elsewhere, ["prepare"]);
  expect(inCwd.stdout).toContain(join("models", "cell-1.yaml"));
  // The store's SDK is not installed: a warning (onboard needs it; provisioning does not).
  expect(inCwd.stdout).toContain("warning: secrets.store google-secret-manager needs @google-cloud/secret-manager, which is not installed");
  expect(inCwd.status).toBe(0);

  const byFlag = runFrom(empty, ["prepare", "--models-dir", join(elsewhere, "models")]);
  expect(byFlag.stdout).toContain(join(elsewhere, "models", "cell-1.yaml"));
  expect(byFlag.status).toBe(0);

  rmSync(join(elsewhere, "models", "schema.json"));
  const byEnv = runFrom(empty, ["prepare"], { ...process.env, RUNNER_MODELS_DIR: join(elsewhere, "models") });
  expect(byEnv.stderr).not.toMatch(STACK_TRACE_LINE);
  expect(byEnv.status).toBe(0);
  expect(readFileSync(join(elsewhere, "models", "schema.json"), "utf8")).toBe(readFileSync(join(installed, "models", "schema.json"), "utf8"));

  // What provision writes goes beside the models too (lib/files/workspace.ts), not into the current directory.
  const dryRun = runFrom(empty, ["provision", "--model", "cell-1", "--dry-run"], { ...process.env, RUNNER_MODELS_DIR: join(elsewhere, "models") });
  expect(dryRun.stderr).not.toMatch(STACK_TRACE_LINE);
  expect(dryRun.status).toBe(0);
  const stack = JSON.parse(readFileSync(join(elsewhere, "cdktf.out", "stacks", "cell-1", "cdk.tf.json"), "utf8"));
  expect(stack.terraform.backend.local.path).toBe(join(elsewhere, ".state", "terraform", "cell-1.tfstate"));
  expect(readdirSync(empty)).toEqual([]);
});

test("onboard without its store's SDK stops before any call to GitLab, naming the package and the command that installs it", () => {
  // With a token, the next step would be GitLab (cell-1.gitlab.example.com, which does not resolve): a different error.
  const onboard = bin(["onboard", "--model", "cell-1"], repo, { ...process.env, GITLAB_TOKEN: "glpat-never-sent" });
  expect(onboard.stderr).toBe(
    "error: secrets.store google-secret-manager needs @google-cloud/secret-manager, which is not installed: it is an optional peer dependency of runner-fleet, " +
      `installed beside it by the models repository (npm install --save-exact @google-cloud/secret-manager@${installedPeerVersion("@google-cloud/secret-manager")})\n`,
  );
  expect(onboard.status).toBe(1);
});

test("a code cache that cannot be written only makes a run slower", () => {
  // Root writes through file modes, so the stand-in for a read-only install is a cache path that is a directory.
  const cache = join(installed, "dist", "bundle", "prepare.js.v8-cache");
  rmSync(cache, { force: true });
  mkdirSync(join(cache, "in-the-way"), { recursive: true });
  const result = bin(["prepare", "--model", "cell-1"]);
  expect(result.stderr).toBe("");
  expect(result.status).toBe(0);
  expect(statSync(cache).isDirectory()).toBe(true);
  expect(readdirSync(join(installed, "dist", "bundle")).filter((name) => name.includes("prepare.js.v8-cache."))).toEqual([]);
});

test("the library: examples/own-stack type-checks against the installed declarations and synthesizes a fleet in its own stack", () => {
  expect(linkPeers(repo).sort()).toEqual(["@cdktf/provider-aws", "@cdktf/provider-google", "cdktf", "constructs"]);
  const example = join(repo, "example");
  mkdirSync(example);
  copyFileSync(join(REPO_ROOT, "examples", "own-stack", "main.ts"), join(example, "main.ts"));
  const tsconfig = JSON.parse(readFileSync(join(REPO_ROOT, "examples", "own-stack", "tsconfig.json"), "utf8"));
  // Node's types come from this checkout (the example's own project would have @types/node); the rest from the installed
  // package. The example's own settings otherwise (skipLibCheck, as most apps: the build checked the declarations it emitted).
  tsconfig.compilerOptions = { ...tsconfig.compilerOptions, typeRoots: [join(REPO_ROOT, "node_modules", "@types")] };
  writeFileSync(join(example, "tsconfig.json"), JSON.stringify(tsconfig));
  const tsc = spawnSync(process.execPath, [join(REPO_ROOT, "node_modules", "typescript", "bin", "tsc"), "-p", example], { encoding: "utf8", timeout: 120_000 });
  expect(tsc.stdout + tsc.stderr).toBe("");
  expect(tsc.status).toBe(0);

  const out = join(example, "cdktf.out");
  const synth = spawnSync(process.execPath, [join(example, "main.js"), join(repo, "models", "cell-1.yaml"), out], { cwd: example, encoding: "utf8", timeout: 120_000 });
  expect(synth.stderr).toBe("");
  expect(synth.status).toBe(0);
  const stack = JSON.parse(readFileSync(join(out, "stacks", "platform", "cdk.tf.json"), "utf8"));
  expect(Object.keys(stack.resource.google_storage_bucket)).toContain("build-artifacts");
  expect(Object.keys(stack.resource.google_compute_instance_group_manager).length).toBeGreaterThan(0);
  // The same fleet the CLI synthesized for this model: the same resources of each type.
  const cli = JSON.parse(readFileSync(join(repo, "cdktf.out", "stacks", "cell-1", "cdk.tf.json"), "utf8"));
  for (const type of Object.keys(cli.resource)) {
    expect([type, Object.keys(stack.resource[type] ?? {}).length]).toEqual([type, Object.keys(cli.resource[type]).length + (type === "google_storage_bucket" ? 1 : 0)]);
  }
  expect(relative(repo, out)).toBe(join("example", "cdktf.out"));
});

/** git in `cwd`, as a person with no git configuration of their own would run it. */
function git(cwd: string, ...args: string[]) {
  const result = spawnSync("git", ["-c", "user.name=Models Test", "-c", "user.email=models@example.invalid", "-c", "commit.gpgsign=false", ...args], { cwd, encoding: "utf8" });
  if (result.status !== 0) throw new Error(`git ${args.join(" ")} in ${cwd}: ${result.stderr}`);
  return result.stdout;
}

/**
 * `init --toolkit-tarball`: a models repository with the toolkit in vendor/, made by the installed
 * toolkit, committed, cloned, and installed in the clone with npm ci --offline: no registry, only npm's
 * cache (which this checkout's npm ci filled with the tested versions the lockfile is seeded with).
 * The AWS example: its store's SDK is 24 packages where Google's is 106 (the install is this test's time).
 */
describe("a models repository with the toolkit vendored (init --toolkit-tarball)", () => {
  const offline = { ...process.env, npm_config_offline: "true", npm_config_audit: "false", npm_config_fund: "false" };
  let models: string;

  test("committed and cloned fresh: npm ci --offline, npx --no-install runner-fleet --version and a dry run", () => {
    models = join(root, "vendored-models");
    mkdirSync(models);
    git(models, "init", "--quiet", "--initial-branch=main");
    // --no-install: the lockfile only (the clone below installs); offline, so nothing can come from a registry.
    const init = bin(["init", "--cloud", "aws", "--component-project", "platform/runner-fleet", "--toolkit-tarball", packed.tarball, "--no-install"], models, offline);
    expect(init.stderr).toBe("");
    expect(init.status).toBe(0);
    const vendored = `vendor/runner-fleet-${VERSION}.tgz`;
    expect(init.stdout).toMatch(new RegExp(`^ +created +${vendored.replace(/\./g, "\\.")}$`, "m"));
    expect(readFileSync(join(models, vendored)).equals(readFileSync(packed.tarball))).toBe(true);
    const manifest = JSON.parse(readFileSync(join(models, "package.json"), "utf8"));
    expect(manifest.dependencies).toEqual({ "runner-fleet": `file:${vendored}`, "@aws-sdk/client-ssm": installedPeerVersion("@aws-sdk/client-ssm") });
    const lock = JSON.parse(readFileSync(join(models, "package-lock.json"), "utf8"));
    expect(lock.packages["node_modules/runner-fleet"]).toMatchObject({ version: VERSION, resolved: `file:${vendored}`, integrity: expect.stringMatching(/^sha512-/) });
    git(models, "add", "--all");
    git(models, "commit", "--quiet", "--message", "runner models");

    const clone = join(root, "vendored-clone");
    git(root, "clone", "--quiet", models, clone);
    const ci = spawnSync("npm", ["ci"], { cwd: clone, env: offline, encoding: "utf8", timeout: 240_000 });
    expect(ci.stderr).not.toMatch(/ENOTCACHED|npm error/);
    // No install script left for npm to warn about: runner-fleet has no prepare, the AWS SDK's tree none at all.
    expect(ci.stderr).not.toContain("install-scripts");
    expect(ci.status).toBe(0);
    // npm ci installed what the lockfile says and changed nothing that is committed.
    expect(git(clone, "status", "--porcelain")).toBe("");

    const version = spawnSync("npx", ["--no-install", "runner-fleet", "--version"], { cwd: clone, env: offline, encoding: "utf8", timeout: 120_000 });
    expect(version.stdout).toBe(`${VERSION}\n`);
    expect(version.status).toBe(0);
    const dryRun = spawnSync(process.execPath, [join(clone, "node_modules", ".bin", "runner-fleet"), "provision", "--model", "cell-1", "--dry-run"], { cwd: clone, env: offline, encoding: "utf8", timeout: 120_000 });
    expect(dryRun.stderr).not.toMatch(STACK_TRACE_LINE);
    expect(dryRun.status).toBe(0);
    expect(dryRun.stdout).toContain(`cell-1: dry run: nothing was created; Terraform JSON in ${join(clone, "cdktf.out", "stacks", "cell-1")}`);
    // What the installed toolkit tells a person to run works where they are: npx --no-install, node_modules/runner-fleet/ci/.
    const installedBin = (args: readonly string[]) => spawnSync(process.execPath, [join(clone, "node_modules", ".bin", "runner-fleet"), ...args], { cwd: clone, env: offline, encoding: "utf8", timeout: 120_000 });
    const reviewHelp = installedBin(["review", "--help"]);
    expect(reviewHelp.stdout).toContain("\nExamples:\n  npx --no-install runner-fleet review --base origin/main\n");
    // (commander wraps the help at the terminal's width: compared with its spaces and line breaks as one space)
    expect(reviewHelp.stdout.replace(/\s+/g, " ")).toContain("--toolkit-command <command> with --child-pipeline: how jobs run the toolkit, a subcommand follows it (default: npx --no-install runner-fleet)");
    expect(reviewHelp.stdout.replace(/\s+/g, " ")).toContain("--toolkit-dir <dir> with --child-pipeline: directory of the toolkit's ci/ scripts (default: node_modules/runner-fleet)");
    const child = installedBin(["review", "--child-pipeline", "child.yml", "--all", "--mode", "plan"]);
    expect(child.stderr).toBe("");
    expect(child.status).toBe(0);
    const childYaml = readFileSync(join(clone, "child.yml"), "utf8");
    expect(childYaml.split("\n")[0]).toBe("# Child pipeline generated by `npx --no-install runner-fleet review --child-pipeline` (plan mode, base (all cells)).");
    expect(childYaml).toContain("bash node_modules/runner-fleet/ci/install-engine.sh");
    expect(childYaml).toContain("npx --no-install runner-fleet provision --model cell-1");
    for (const text of [reviewHelp.stdout, childYaml]) expect(text).not.toMatch(/\.\/bin\/|\bnpx runner-fleet\b/);
    rmSync(join(clone, "child.yml"));

    // The store's SDK is installed (init pinned it at the tested version): onboard would find it.
    expect(JSON.parse(readFileSync(join(clone, "node_modules", "@aws-sdk", "client-ssm", "package.json"), "utf8")).version).toBe(installedPeerVersion("@aws-sdk/client-ssm"));
  }, 300_000);

  test("an upgrade: init --update --toolkit-tarball replaces the tarball and moves the pins, nothing else, and the review reads it as an upgrade", async () => {
    // The next version: this tarball with another version in its package.json (what a release's would differ in, for the pins).
    const next = "99.0.0";
    const unpacked = join(root, "next");
    mkdirSync(unpacked);
    execTar(["-xzf", packed.tarball, "-C", unpacked]);
    const manifestFile = join(unpacked, "package", "package.json");
    writeFileSync(manifestFile, readFileSync(manifestFile, "utf8").replace(`"version": "${VERSION}"`, `"version": "${next}"`));
    const nextTarball = join(root, `runner-fleet-${next}.tgz`);
    execTar(["-czf", nextTarball, "-C", unpacked, "package"]);
    const base = git(models, "rev-parse", "HEAD").trim();
    const readme = readFileSync(join(models, "README.md"), "utf8");

    const update = bin(["init", "--update", "--toolkit-tarball", nextTarball, "--no-install"], models, offline);
    expect(update.stderr).toBe("");
    expect(update.status).toBe(0);
    const report = update.stdout.split("\n");
    expect(report.slice(1, report.indexOf("")).map((line) => line.trim().split(/ +/))).toEqual([
      ["updated", ".gitlab-ci.yml"],
      ["created", `vendor/runner-fleet-${next}.tgz`],
      ["removed", `vendor/runner-fleet-${VERSION}.tgz`],
      ["updated", "package.json"],
      ["updated", "package-lock.json"],
    ]);
    expect(report.slice(report.indexOf("Next:"))).toEqual([
      "Next:",
      "  npm install                                     # installs what package.json pins (init did not)",
      "  commit the changed files in one merge request: its review note shows the change (an upgrade with its changelog)",
      "  npx --no-install runner-fleet prepare                  # refreshes models/schema.json for the new version",
      "",
    ]);
    expect(readdirSync(join(models, "vendor"))).toEqual([basename(nextTarball)]);
    expect(readFileSync(join(models, "README.md"), "utf8")).toBe(readme);
    // The include and its toolkit_version move together; no other line of the pipeline changes.
    expect(git(models, "diff", "--unified=0", "--", ".gitlab-ci.yml").split("\n").filter((line) => /^[-+](?![-+])/.test(line))).toEqual([
      `-  - component: $CI_SERVER_FQDN/platform/runner-fleet/runner-fleet@${VERSION}`,
      `+  - component: $CI_SERVER_FQDN/platform/runner-fleet/runner-fleet@${next}`,
      `-      toolkit_version: "${VERSION}"   # the runner-fleet package version the jobs install (the one package.json pins)`,
      `+      toolkit_version: "${next}"   # the runner-fleet package version the jobs install (the one package.json pins)`,
    ]);
    const upgrade = await toolkitUpgrade({ cwd: models, baseSha: base, toolkit: { version: next } });
    expect(upgrade).toMatchObject({ package: "runner-fleet", from: VERSION, to: next, direction: "upgrade" });
  }, 120_000);
});

function execTar(args: readonly string[]): void {
  const result = spawnSync("tar", args, { encoding: "utf8" });
  if (result.status !== 0) throw new Error(`tar ${args.join(" ")}: ${result.stderr}`);
}
