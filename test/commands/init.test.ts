/**
 * `runner-fleet init` writes a models repository that works: the model it writes loads as the
 * commands load it (and, for AWS here and Google Cloud in test/package/tarball.test.ts, goes through a
 * dry run), the pipeline includes the component at this version, package.json pins this version.
 * It never overwrites a file without --force, and refuses with the list of files in its way.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Ajv from "ajv";
import { parse } from "yaml";
import { formatInitReport, runInit } from "../../app/commands/init";
import { PLACEHOLDER_COMPONENT_PROJECT } from "../../app/init/scaffold-files";
import { toolkitVersion } from "../../lib/files/toolkit-version";
import { runnerModelJsonSchemaText } from "../../lib/model/json-schema";
import { loadModelFile } from "../../lib/model/load";
import { OperationalError, UserInputError } from "../../lib/process/errors";
import { STORE_SDKS } from "../../lib/secrets/store-sdk";
import { REPO_ROOT, STACK_TRACE_LINE, runBin } from "../support/cli";
import { parsedCommandLine } from "../support/command-line";
import { prepareCommand } from "../../app/commands/prepare";
import { parsePrepareOptions } from "../../app/commands/prepare-options";
import { provisionCommand } from "../../app/commands/provision";
import { parseProvisionOptions } from "../../app/commands/provision-options";
import { statusCommand } from "../../app/commands/status";
import { parseStatusOptions } from "../../app/commands/status-options";

/** The options parsers of the commands the team's README and scripts name. */
const PARSERS: Record<string, (args: readonly string[]) => unknown> = {
  prepare: (args) => parsePrepareOptions(parsedCommandLine(prepareCommand(), args)),
  provision: (args) => parseProvisionOptions(parsedCommandLine(provisionCommand(), args)),
  status: (args) => parseStatusOptions(parsedCommandLine(statusCommand(), args)),
};

const VERSION = toolkitVersion();
/** The versions runner-fleet pins its optional peers at (package.json). */
const PEERS = (JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as { peerDependencies: Record<string, string> }).peerDependencies;
// GitLab's CI schema (draft-07, Ajv's default dialect), as test/ci/pipeline-schema.test.ts uses it.
const validatePipeline = new Ajv({ strict: false, allErrors: true, logger: false }).compile(
  JSON.parse(readFileSync(join(REPO_ROOT, "test", "fixtures", "gitlab-ci.schema.json"), "utf8")) as Record<string, unknown>,
);
let root: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "init-"));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function read(dir: string, path: string): string {
  return readFileSync(join(dir, path), "utf8");
}

function initBin(args: readonly string[], cwd: string) {
  const result = spawnSync(process.execPath, [join(REPO_ROOT, "bin", "init"), ...args], { cwd, encoding: "utf8", timeout: 60_000 });
  if (result.error) throw result.error;
  return result;
}

describe("a new repository", () => {
  test("google: the model (schema on its first line) loads as the commands load it, and the rest is wired to this version", () => {
    const dir = join(root, "runner-models");
    const result = runInit({ dir, lockfile: false });

    expect(result.files.map((file) => [file.path, file.outcome])).toEqual([
      ["models/cell-1.yaml", "created"],
      ["models/schema.json", "created"],
      [".gitlab-ci.yml", "created"],
      ["README.md", "created"],
      [".gitignore", "created"],
      ["package.json", "created"],
    ]);
    const model = read(dir, "models/cell-1.yaml");
    expect(model.split("\n")[0]).toBe("# yaml-language-server: $schema=./schema.json");
    expect(read(dir, "models/schema.json")).toBe(runnerModelJsonSchemaText());
    const loaded = loadModelFile(join(dir, "models", "cell-1.yaml"), { requireFileNameMatch: true });
    expect(loaded.model.cloud.provider).toBe("google");
    expect(loaded.model.cell.id).toBe("cell-1");
    expect(loaded.warnings).toEqual([]);

    const pipeline = parse(read(dir, ".gitlab-ci.yml")) as { include: Array<{ component: string; inputs: Record<string, string> }> };
    expect(validatePipeline(pipeline) ? [] : validatePipeline.errors).toEqual([]);
    expect(validatePipeline({ include: [{ component: 42 }] })).toBe(false);
    expect(pipeline.include).toEqual([
      { component: `$CI_SERVER_FQDN/${PLACEHOLDER_COMPONENT_PROJECT}/runner-fleet@${VERSION}`, inputs: { toolkit_version: VERSION, models_dir: "models" } },
    ]);

    const manifest = JSON.parse(read(dir, "package.json"));
    // Beside runner-fleet, the SDK of the example's store (an optional peer: lib/secrets/store-sdk.ts), at the version runner-fleet pins it.
    expect(manifest).toMatchObject({ name: "runner-models", private: true });
    expect(manifest.dependencies).toEqual({ "runner-fleet": VERSION, [STORE_SDKS["google-secret-manager"]!]: PEERS[STORE_SDKS["google-secret-manager"]!] });
    // Exactly this version: no range, so the lockfile and the pipeline's include agree.
    expect(manifest.dependencies["runner-fleet"]).toMatch(/^\d+\.\d+\.\d+(-[\w.]+)?$/);
    expect(Object.values(manifest.scripts as Record<string, string>).every((script) => script.startsWith("runner-fleet "))).toBe(true);

    const readme = read(dir, "README.md");
    for (const part of ["## First run", "## Variables", "## Upgrade", "GITLAB_TOKEN", "GITLAB_REVIEW_TOKEN", "npx --no-install runner-fleet provision --model cell-1 --dry-run", `provisioned by runner-fleet ${VERSION}`]) {
      expect(readme).toContain(part);
    }
    expect(read(dir, ".gitignore").split("\n")).toEqual(expect.arrayContaining(["node_modules/", "cdktf.out/", ".state/"]));
    expect(result.notes).toEqual(expect.arrayContaining([expect.stringContaining(`component from ${PLACEHOLDER_COMPONENT_PROJECT}`), expect.stringContaining("no package-lock.json written (--no-lockfile)")]));
  });

  test("aws, with a cell and component project of the team's: the model goes through a dry run", () => {
    const dir = join(root, "models-repo");
    runInit({ dir, cloud: "aws", cell: "cell-7", componentProject: "platform/ci/runner-fleet", lockfile: false });

    expect(readdirSync(join(dir, "models")).sort()).toEqual(["cell-7.yaml", "schema.json"]);
    const loaded = loadModelFile(join(dir, "models", "cell-7.yaml"), { requireFileNameMatch: true });
    expect(loaded.model.cloud.provider).toBe("aws");
    expect(loaded.warnings).toEqual([]);
    // The SDK of the AWS example's store, not Google's.
    expect(JSON.parse(read(dir, "package.json")).dependencies).toEqual({ "runner-fleet": VERSION, [STORE_SDKS[loaded.model.secrets.store]!]: PEERS["@aws-sdk/client-ssm"] });
    expect(loaded.model.secrets.store).toBe("aws-ssm");
    expect(read(dir, ".gitlab-ci.yml")).toContain(`- component: $CI_SERVER_FQDN/platform/ci/runner-fleet/runner-fleet@${VERSION}\n`);

    const out = join(root, "out");
    const dryRun = runBin("provision", ["--model", "cell-7", "--dry-run", "--out", out], { cwd: dir });
    expect(dryRun.stderr).not.toMatch(STACK_TRACE_LINE);
    expect(dryRun.status).toBe(0);
    expect(dryRun.stdout).toContain(`cell-7: dry run: nothing was created; Terraform JSON in ${join(out, "stacks", "cell-7")}`);
    const stack = JSON.parse(readFileSync(join(out, "stacks", "cell-7", "cdk.tf.json"), "utf8"));
    expect(Object.keys(stack.resource)).toEqual(expect.arrayContaining(["aws_autoscaling_group", "aws_launch_template"]));
  });

  test("a directory that only holds other files (a git repository) is used as it is", () => {
    mkdirSync(join(root, ".git"));
    writeFileSync(join(root, ".git", "HEAD"), "ref: refs/heads/main\n");
    writeFileSync(join(root, "NOTES.txt"), "ours\n");
    runInit({ dir: root, lockfile: false });
    expect(read(root, "NOTES.txt")).toBe("ours\n");
    expect(read(root, ".git/HEAD")).toBe("ref: refs/heads/main\n");
    expect(existsSync(join(root, "models", "cell-1.yaml"))).toBe(true);
  });
});

test("every command line the team's README and package.json scripts give is one the commands accept", () => {
  runInit({ dir: root, lockfile: false });
  const readme = read(root, "README.md");
  const scripts = Object.values(JSON.parse(read(root, "package.json")).scripts as Record<string, string>);
  // npx --no-install everywhere: a bare `npx runner-fleet` before `npm ci` runs whatever the public registry has under that name.
  expect([readme, read(root, ".gitlab-ci.yml"), read(root, "models/cell-1.yaml")].filter((text) => /\bnpx runner-fleet\b/.test(text))).toEqual([]);
  const lines = [...readme.matchAll(/npx --no-install (runner-fleet [^\n`#]*)/g)].map((match) => match[1].trim()).concat(scripts);
  // A script that ends in --model takes the cell from `npm run <script> -- <cell>`.
  const parsed = lines.map((line) => line.split(/\s+/).slice(1).concat(line.endsWith(" --model") ? ["cell-1"] : [])).filter(([command]) => command in PARSERS);
  expect(new Set(parsed.map(([command]) => command))).toEqual(new Set(["prepare", "provision", "status"]));
  for (const [command, ...args] of parsed) {
    const options = PARSERS[command](args) as { models?: readonly string[] };
    // provision acts only on the cells named: a line without --model would be refused when it runs.
    if (command === "provision") expect(options.models?.length).toBeGreaterThan(0);
  }
});

describe("files in the way", () => {
  test("without --force: every file in the way is named, nothing is written, exit 2 without a trace", () => {
    mkdirSync(join(root, "models"));
    writeFileSync(join(root, "models", "cell-1.yaml"), "# ours\n");
    writeFileSync(join(root, "README.md"), "# ours\n");

    const result = initBin(["--no-lockfile"], root);

    expect(result.status).toBe(2);
    expect(result.stderr).toBe(
      `error: ${root} already has models/cell-1.yaml, README.md; nothing was written. Move them aside, or run again with --force to overwrite them\n`,
    );
    expect(result.stdout).toBe("");
    expect(readdirSync(root).sort()).toEqual(["README.md", "models"]);
    expect(readdirSync(join(root, "models"))).toEqual(["cell-1.yaml"]);
    expect(read(root, "README.md")).toBe("# ours\n");
  });

  test("--force overwrites them, and pins this version in a package.json whose other fields stay the team's", () => {
    writeFileSync(join(root, "README.md"), "# ours\n");
    writeFileSync(join(root, "package.json"), JSON.stringify({ name: "ours", dependencies: { "runner-fleet": "0.0.1", other: "1.2.3" }, scripts: { validate: "our own" } }));

    const kept = runInit({ dir: join(root, "elsewhere"), lockfile: false });
    expect(kept.files.find((file) => file.path === "package.json")?.outcome).toBe("created");

    const result = runInit({ dir: root, force: true, lockfile: false });

    expect(result.files.find((file) => file.path === "README.md")?.outcome).toBe("overwritten");
    expect(read(root, "README.md")).toContain("# Runner models");
    const manifest = JSON.parse(read(root, "package.json"));
    expect(manifest.name).toBe("ours");
    expect(manifest.dependencies).toEqual({ "runner-fleet": VERSION, other: "1.2.3", "@google-cloud/secret-manager": PEERS["@google-cloud/secret-manager"] });
    expect(manifest.scripts.validate).toBe("our own");

    // Run again unchanged: nothing to overwrite, everything reads the same.
    const again = runInit({ dir: root, force: true, lockfile: false });
    expect(again.files.every((file) => file.outcome === "unchanged")).toBe(true);
  });

  test("a .gitignore of the team's is kept, with the lines it lacks appended once", () => {
    writeFileSync(join(root, ".gitignore"), "*.log\nnode_modules/");
    const result = runInit({ dir: root, lockfile: false });
    expect(result.files.find((file) => file.path === ".gitignore")?.outcome).toBe("updated");
    const lines = read(root, ".gitignore").split("\n");
    expect(lines.slice(0, 3)).toEqual(["*.log", "node_modules/", "# runner-fleet"]);
    expect(lines.filter((line) => line === "node_modules/")).toHaveLength(1);
    expect(lines).toEqual(expect.arrayContaining(["cdktf.out/", ".state/"]));
    const again = runInit({ dir: root, force: true, lockfile: false });
    expect(again.files.find((file) => file.path === ".gitignore")?.outcome).toBe("unchanged");
  });

  test("a package.json of its own (npm install runner-fleet first) is merged into without --force, its pin kept and said", () => {
    writeFileSync(join(root, "package.json"), JSON.stringify({ dependencies: { "runner-fleet": "file:../runner-fleet.tgz", "@google-cloud/secret-manager": "^6.0.0" } }));
    const result = runInit({ dir: root, lockfile: false });
    expect(JSON.parse(read(root, "package.json")).dependencies).toEqual({ "runner-fleet": "file:../runner-fleet.tgz", "@google-cloud/secret-manager": "^6.0.0" });
    expect(result.files.find((file) => file.path === "package.json")?.outcome).toBe("updated");
    expect(result.notes).toContain(`package.json keeps runner-fleet at file:../runner-fleet.tgz; --force pins it at ${VERSION}`);
  });
});

describe("bad input has no side effects", () => {
  test("a --cell the model refuses is named with what a cell id must be", () => {
    expect(() => runInit({ dir: root, cell: "Cell_1", lockfile: false })).toThrow(UserInputError);
    expect(() => runInit({ dir: root, cell: "Cell_1", lockfile: false })).toThrow(/^--cell "Cell_1" does not make a valid model:\nmodels\/Cell_1\.yaml:\d+:\d+: cell\.id: expected /);
    expect(readdirSync(root)).toEqual([]);
  });

  test("a package.json that is not JSON is named, and nothing is written", () => {
    writeFileSync(join(root, "package.json"), "{ not json");
    expect(() => runInit({ dir: root, lockfile: false })).toThrow(new RegExp(`^${join(root, "package.json")}: expected a JSON object \\(package.json\\), received text that is not JSON`));
    expect(readdirSync(root)).toEqual(["package.json"]);
  });

  test("a directory argument that is a file, and a directory where init writes a file", () => {
    writeFileSync(join(root, "file"), "");
    expect(() => runInit({ dir: join(root, "file"), lockfile: false })).toThrow(`${join(root, "file")}: expected a directory (or a path to create one at), received a file`);
    mkdirSync(join(root, "repo", "README.md"), { recursive: true });
    expect(() => runInit({ dir: join(root, "repo"), lockfile: false })).toThrow(`${join(root, "repo", "README.md")}: expected a file init can read or write, received a directory`);
    expect(readdirSync(join(root, "repo"))).toEqual(["README.md"]);
  });

  test("a component project that is not a project path", () => {
    expect(() => runInit({ dir: root, componentProject: "runner-fleet", lockfile: false })).toThrow(
      '--component-project: expected a GitLab project\'s full path such as platform/runner-fleet, received "runner-fleet"',
    );
    expect(readdirSync(root)).toEqual([]);
  });
});

describe("the lockfile", () => {
  /** A stand-in for npm (npm_execpath, as npx sets it): records its arguments, then writes a lockfile or fails as npm does. */
  function fakeNpm(behaviour: "writes" | "fails", seen?: string): NodeJS.ProcessEnv {
    const script = join(root, "fake", "npm-cli.js");
    mkdirSync(join(root, "fake"));
    writeFileSync(
      script,
      [
        `require("node:fs").writeFileSync(${JSON.stringify(join(root, "fake", "args.json"))}, JSON.stringify(process.argv.slice(2)));`,
        seen ? `require("node:fs").copyFileSync("package-lock.json", ${JSON.stringify(seen)});` : "",
        behaviour === "writes"
          ? `require("node:fs").writeFileSync("package-lock.json", JSON.stringify({ lockfileVersion: 3, packages: { "": require(process.cwd() + "/package.json") } }));`
          : `process.stderr.write("npm error code E404\\nnpm error 404 Not Found - GET https://registry.npmjs.org/runner-fleet\\n"); process.exit(1);`,
      ].join("\n"),
    );
    return { ...process.env, npm_execpath: script };
  }

  test("is seeded with the versions the toolkit was tested with, then npm installs what package.json pins", () => {
    const dir = join(root, "repo");
    const seen = join(root, "fake", "lock-npm-saw.json");
    const result = runInit({ dir, env: fakeNpm("writes", seen) });
    expect(JSON.parse(read(root, "fake/args.json"))).toEqual(["install", "--prefer-offline", "--no-audit", "--no-fund"]);
    // What npm found when it started: this checkout's locked entries for runner-fleet's dependencies and for the SDK's tree.
    const tested = JSON.parse(readFileSync(join(REPO_ROOT, "package-lock.json"), "utf8")).packages as Record<string, { version: string; dev?: boolean }>;
    const seeded = JSON.parse(readFileSync(seen, "utf8")).packages as Record<string, { version: string; dev?: boolean; dependencies?: Record<string, string> }>;
    for (const path of ["node_modules/yaml", "node_modules/zod", "node_modules/@google-cloud/secret-manager", "node_modules/google-gax"]) {
      expect([path, seeded[path]?.version]).toEqual([path, tested[path].version]);
    }
    // Dev-only in this checkout, a dependency there: no flag that would make npm skip it.
    expect(tested["node_modules/@google-cloud/secret-manager"].dev).toBe(true);
    expect(Object.values(seeded).filter((entry) => entry.dev)).toEqual([]);
    // The toolkit's own entry is the registry's to give (npm resolves it); the AWS SDK is not this store's.
    expect(seeded["node_modules/runner-fleet"]).toBeUndefined();
    expect(seeded["node_modules/@aws-sdk/client-ssm"]).toBeUndefined();
    expect(seeded[""].dependencies).toEqual({ "runner-fleet": VERSION, "@google-cloud/secret-manager": PEERS["@google-cloud/secret-manager"] });
    expect(result.files.slice(-2)).toEqual([
      { path: "package-lock.json", outcome: "created" },
      { path: "node_modules/", outcome: "updated" },
    ]);
    // The Google SDK's tree has protobufjs, whose install script the toolkit's tests run without: the same decision here.
    expect(JSON.parse(read(dir, "package.json")).allowScripts).toEqual({ protobufjs: false });
    expect(formatInitReport(result)).not.toContain("npm install");
  });

  test("--no-install: the lockfile only, and the report says what to run", () => {
    const dir = join(root, "repo");
    const result = runInit({ dir, install: false, env: fakeNpm("writes") });
    expect(JSON.parse(read(root, "fake/args.json"))).toEqual(["install", "--package-lock-only", "--no-audit", "--no-fund"]);
    expect(result.files.at(-1)).toEqual({ path: "package-lock.json", outcome: "created" });
    expect(formatInitReport(result)).toContain("\nNext:\n  npm install                                     # installs what package.json pins (init did not)\n  npx --no-install runner-fleet provision --model cell-1 --dry-run\n");
  });

  test("npm failing (no registry) is an environment failure that says what was written and what to run", () => {
    const dir = join(root, "repo");
    let error: unknown;
    try {
      runInit({ dir, env: fakeNpm("fails") });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(OperationalError);
    expect((error as Error).message).toContain(`the other files are written, but npm could not install in ${dir}`);
    expect((error as Error).message).toContain("npm error 404 Not Found - GET https://registry.npmjs.org/runner-fleet");
    expect((error as Error).message).toContain("Run `npm install` there");
    expect(existsSync(join(dir, "models", "cell-1.yaml"))).toBe(true);
  });
});

describe("init --update", () => {
  test("--component-project changes the include's project and nothing else: the team's README, models and pins stay", () => {
    runInit({ dir: root, lockfile: false });
    writeFileSync(join(root, "README.md"), "# Our runners\n");
    const ci = read(root, ".gitlab-ci.yml");
    const before = Object.fromEntries(["README.md", "package.json", "models/cell-1.yaml", ".gitignore"].map((path) => [path, read(root, path)]));

    const result = initBin(["--update", "--component-project", "platform/ci/runner-fleet"], root);
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
    expect(result.stdout.split("\n").slice(1, 2)).toEqual(["  updated  .gitlab-ci.yml"]);
    expect(read(root, ".gitlab-ci.yml")).toBe(
      ci.replace(`$CI_SERVER_FQDN/${PLACEHOLDER_COMPONENT_PROJECT}/runner-fleet@${VERSION}`, `$CI_SERVER_FQDN/platform/ci/runner-fleet/runner-fleet@${VERSION}`),
    );
    expect(read(root, ".gitlab-ci.yml")).not.toBe(ci);
    for (const [path, text] of Object.entries(before)) expect([path, read(root, path)]).toEqual([path, text]);
    expect(readdirSync(join(root, "models")).sort()).toEqual(["cell-1.yaml", "schema.json"]);
  });

  test("fails when it is given nothing to change, or the pipeline has no include of the component", () => {
    runInit({ dir: root, lockfile: false });
    const nothing = initBin(["--update"], root);
    expect(nothing.status).toBe(2);
    expect(nothing.stderr).toBe(
      "error: --update: expected what to change, received neither; give --component-project <group/project> (the include's path) and/or --toolkit-tarball <file> (an upgrade)\n",
    );
    writeFileSync(join(root, ".gitlab-ci.yml"), "include:\n  - project: platform/templates\n    file: runners.yml\n");
    const noInclude = initBin(["--update", "--component-project", "platform/runner-fleet"], root);
    expect(noInclude.status).toBe(2);
    expect(noInclude.stderr).toBe(
      `error: ${join(root, ".gitlab-ci.yml")}: expected the include of the runner-fleet component, such as \`- component: $CI_SERVER_FQDN/platform/runner-fleet/runner-fleet@1.2.0\`, received a file without one; add it, or change the file by hand\n`,
    );
    expect(read(root, ".gitlab-ci.yml")).toBe("include:\n  - project: platform/templates\n    file: runners.yml\n");
  });

  test("fails when there is no models repository to update", () => {
    const result = initBin(["--update", "--component-project", "platform/runner-fleet"], root);
    expect(result.status).toBe(2);
    expect(result.stderr).toBe(`error: ${join(root, ".gitlab-ci.yml")}: expected the models repository's pipeline that init wrote, received no such file; run init without --update to write one\n`);
    expect(readdirSync(root)).toEqual([]);
  });
});

describe("init --toolkit-tarball", () => {
  test("fails when the file is missing or is not runner-fleet's package, before writing anything", () => {
    const missing = initBin(["--toolkit-tarball", "runner-fleet-1.2.0.tgz", "--no-lockfile"], root);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toBe(
      'error: --toolkit-tarball: expected runner-fleet\'s package (a .tgz that `npm pack` wrote, such as runner-fleet-1.2.0.tgz), received "runner-fleet-1.2.0.tgz", which is not a file\n',
    );
    // Another package's tarball: npm pack's layout (package/package.json), another name.
    mkdirSync(join(root, "other", "package"), { recursive: true });
    writeFileSync(join(root, "other", "package", "package.json"), JSON.stringify({ name: "left-pad", version: "1.3.0" }));
    spawnSync("tar", ["-czf", join(root, "left-pad-1.3.0.tgz"), "-C", join(root, "other"), "package"]);
    const other = initBin(["--toolkit-tarball", "left-pad-1.3.0.tgz", "--no-lockfile"], root);
    expect(other.status).toBe(2);
    expect(other.stderr).toBe(
      'error: --toolkit-tarball: expected runner-fleet\'s package (a .tgz that `npm pack` wrote, such as runner-fleet-1.2.0.tgz), received "left-pad-1.3.0.tgz", the package "left-pad"\n',
    );
    expect(readdirSync(root).sort()).toEqual(["left-pad-1.3.0.tgz", "other"]);
  });
});
