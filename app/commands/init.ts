/**
 * `init`: turns an empty directory (or a new git repository) into a models repository that works:
 * models/<cell>.yaml (a commented example, --cloud google|aws), models/schema.json, a .gitlab-ci.yml
 * that includes the toolkit's CI/CD component at this version, package.json pinning runner-fleet at
 * this version (and the SDK of the example's secret store) with its lockfile, a README for the team
 * and a .gitignore.
 *
 * It never overwrites a file without --force: every file in the way is listed and nothing is written
 * (exit 2). package.json and .gitignore are merged into, not replaced, so `npm install runner-fleet &&
 * npx --no-install runner-fleet init` works; package.json's runner-fleet pin changes only with --force
 * (or --toolkit-tarball, which asks for it by name). Then it installs what package.json pins, at the
 * versions the toolkit was tested with (app/init/lockfile.ts).
 *
 * `--update` changes an existing models repository only where its flags say: `--component-project`
 * the include's project path in .gitlab-ci.yml, `--toolkit-tarball` the vendored tarball, its pin and
 * lockfile and the include's version (an upgrade, in one merge request). The team's README, models and
 * other lines stay as they are.
 */
import { mkdirSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { Argument, Option, type Command } from "commander";
import { cliCommand, packageVersion, withDefault } from "../cli/options";
import { OperationalError, UserInputError } from "../../lib/process/errors";
import { CLOUDS, PLACEHOLDER_COMPONENT_PROJECT, scaffoldFiles, type Cloud } from "../init/scaffold-files";
import { PACKAGE_NAME, packageManifest, readIfPresent } from "../init/package-manifest";
import { npmInstall, seedLockfile } from "../init/lockfile";
import { NPM_TOKEN_VARIABLE, npmRegistryUrl } from "../init/npmrc";
import { readToolkitTarball, vendorTarball, type ToolkitTarball } from "../init/toolkit-tarball";
import { withComponentProject, withComponentVersion } from "../init/gitlab-ci-file";
import { INSTALLED_TOOLKIT, toolkitCommand } from "../../lib/ci/toolkit-invocation";
import { runningTestedDependencies, type TestedDependencies } from "../../lib/files/tested-dependencies";
import { STORE_SDKS } from "../../lib/secrets/store-sdk";
import { toolkitAllowScripts } from "../../lib/files/toolkit-version";

export interface InitOptions {
  /** @default "." */
  readonly dir?: string;
  /** @default google */
  readonly cloud?: Cloud;
  /** @default cell-1 */
  readonly cell?: string;
  readonly force?: boolean;
  /** @default PLACEHOLDER_COMPONENT_PROJECT */
  readonly componentProject?: string;
  /** Write package-lock.json and install with npm (needs the registry, or npm's cache for a vendored tarball). @default true */
  readonly lockfile?: boolean;
  /** With the lockfile, install what it locks (else `npm install --package-lock-only`). @default true */
  readonly install?: boolean;
  /** runner-fleet's package file, kept in the repository (vendor/) and pinned there (app/init/toolkit-tarball.ts). @default - the registry's runner-fleet */
  readonly toolkitTarball?: string;
  /** Change an existing models repository only where componentProject and toolkitTarball say. @default false */
  readonly update?: boolean;
  /** The toolkit version to pin. @default this package's version */
  readonly version?: string;
  /** A GitLab project's npm registry runner-fleet is installed from: a `.npmrc` for it (app/init/npmrc.ts). @default - none */
  readonly npmRegistry?: string;
  readonly env?: NodeJS.ProcessEnv;
}

export type FileOutcome = "created" | "overwritten" | "updated" | "unchanged" | "removed";

export interface InitResult {
  readonly dir: string;
  readonly version: string;
  readonly files: ReadonlyArray<{ readonly path: string; readonly outcome: FileOutcome }>;
  readonly notes: readonly string[];
  /** What init left to run: `npm install` when it did not install. */
  readonly installed: boolean;
  readonly update: boolean;
}

export function runInit(options: InitOptions = {}): InitResult {
  const dir = resolve(options.dir ?? ".");
  const componentProject = options.componentProject ?? PLACEHOLDER_COMPONENT_PROJECT;
  if (!/^[\w.-]+(\/[\w.-]+)+$/.test(componentProject)) {
    throw new UserInputError(`--component-project: expected a GitLab project's full path such as platform/runner-fleet, received ${JSON.stringify(componentProject)}`);
  }
  const npmRegistry = options.npmRegistry === undefined ? undefined : npmRegistryUrl(options.npmRegistry);
  if (statSync(dir, { throwIfNoEntry: false })?.isDirectory() === false) throw new UserInputError(`${dir}: expected a directory (or a path to create one at), received a file`);
  const tarball = options.toolkitTarball === undefined ? undefined : readToolkitTarball(resolve(options.toolkitTarball), options.toolkitTarball);
  const version = tarball?.version ?? options.version ?? packageVersion();
  if (options.update) return runUpdate(dir, options, tarball);
  const force = options.force ?? false;
  const scaffold = scaffoldFiles({ cloud: options.cloud ?? "google", cell: options.cell ?? "cell-1", version, componentProject, npmRegistry });
  const files = scaffold.files;
  // The store's SDK at the version the installed toolkit names: the tarball's own peer pin when it is one.
  const packages = Object.fromEntries(Object.entries(scaffold.packages).map(([name, pin]) => [name, tarball?.manifest.peerDependencies?.[name] ?? pin]));

  const existing = new Map(files.map((file) => [file.path, readIfPresent(join(dir, file.path))]));
  const inTheWay = files.filter((file) => existing.get(file.path) !== undefined && file.merge === undefined).map((file) => file.path);
  if (inTheWay.length > 0 && !force) {
    throw new UserInputError(`${dir} already has ${inTheWay.join(", ")}; nothing was written. Move them aside, or run again with --force to overwrite them`);
  }
  const manifestFile = join(dir, "package.json");
  const tested = testedOf(tarball);
  const manifest = packageManifest(manifestFile, dir, tarball?.spec ?? version, force, readIfPresent(manifestFile), packages, tarball ? [PACKAGE_NAME] : [], allowScriptsFor(tarball, tested, Object.keys(packages)));

  const outcomes: Array<{ path: string; outcome: FileOutcome }> = [];
  for (const file of files) {
    const before = existing.get(file.path);
    const content = before !== undefined && file.merge ? file.merge(before) : file.content;
    if (before !== content) writeScaffoldFile(join(dir, file.path), content);
    const changed: FileOutcome = file.merge ? "updated" : "overwritten";
    outcomes.push({ path: file.path, outcome: before === undefined ? "created" : before === content ? "unchanged" : changed });
  }
  if (tarball) outcomes.push(...vendored(dir, tarball));
  if (manifest.changed) writeScaffoldFile(manifestFile, manifest.content);
  outcomes.push({ path: "package.json", outcome: !manifest.existed ? "created" : manifest.changed ? "updated" : "unchanged" });

  const notes: string[] = [];
  if (manifest.keptSpec !== undefined) notes.push(`package.json keeps runner-fleet at ${manifest.keptSpec}; --force pins it at ${version}`);
  if (componentProject === PLACEHOLDER_COMPONENT_PROJECT) {
    notes.push(
      `.gitlab-ci.yml includes the component from ${PLACEHOLDER_COMPONENT_PROJECT}: replace it with the project that hosts runner-fleet on your GitLab ` +
        `(or run ${toolkitCommand(INSTALLED_TOOLKIT, "init")} --update --component-project <group/project>)`,
    );
  }
  if (npmRegistry !== undefined) {
    notes.push(
      `.npmrc installs runner-fleet from ${npmRegistry}: for a private project, export $${NPM_TOKEN_VARIABLE} (a token with read_package_registry) before npm install here, ` +
        "and let this repository's pipelines in with their job token (that project's Settings > CI/CD > Job token permissions)",
    );
  }
  const pinnedToolkit = JSON.parse(manifest.content).dependencies[PACKAGE_NAME] === (tarball?.spec ?? version) && (tarball !== undefined || version === packageVersion());
  const installed = lockAndInstall(dir, options, manifest.dependencyChanged || tarball !== undefined, { tarball, pinnedToolkit, peers: Object.keys(packages) }, outcomes, notes);
  return { dir, version, files: outcomes, notes, installed, update: false };
}

/** `--update`: the include's project and/or the vendored toolkit of an existing models repository; nothing else. */
function runUpdate(dir: string, options: InitOptions, tarball: ToolkitTarball | undefined): InitResult {
  if (options.componentProject === undefined && tarball === undefined) {
    throw new UserInputError("--update: expected what to change, received neither; give --component-project <group/project> (the include's path) and/or --toolkit-tarball <file> (an upgrade)");
  }
  const ciFile = join(dir, ".gitlab-ci.yml");
  const ci = readIfPresent(ciFile);
  if (ci === undefined) throw new UserInputError(`${ciFile}: expected the models repository's pipeline that init wrote, received no such file; run init without --update to write one`);
  let updatedCi = ci;
  if (options.componentProject !== undefined) updatedCi = withComponentProject(ciFile, updatedCi, options.componentProject);
  if (tarball) updatedCi = withComponentVersion(ciFile, updatedCi, tarball.version);
  const outcomes: Array<{ path: string; outcome: FileOutcome }> = [];
  const notes: string[] = [];
  let installed = false;
  let version = options.version ?? packageVersion();
  if (tarball) {
    version = tarball.version;
    const manifestFile = join(dir, "package.json");
    const before = readIfPresent(manifestFile);
    if (before === undefined) throw new UserInputError(`${manifestFile}: expected the models repository's package.json, received no such file; run init without --update to write one`);
    // The store SDKs it pins move with the toolkit's peer pins (npm refuses the install otherwise: ERESOLVE).
    const pinned = Object.keys((JSON.parse(before) as { dependencies?: Record<string, string> }).dependencies ?? {});
    const sdks = Object.values(STORE_SDKS).filter((name): name is string => name !== undefined && pinned.includes(name) && tarball.manifest.peerDependencies?.[name] !== undefined);
    const packages = Object.fromEntries(sdks.map((name) => [name, tarball.manifest.peerDependencies?.[name] as string]));
    const manifest = packageManifest(manifestFile, dir, tarball.spec, false, before, packages, [PACKAGE_NAME, ...sdks], allowScriptsFor(tarball, tarball.tested, sdks));
    outcomes.push(...vendored(dir, tarball));
    if (manifest.changed) writeScaffoldFile(manifestFile, manifest.content);
    outcomes.push({ path: "package.json", outcome: manifest.changed ? "updated" : "unchanged" });
    installed = lockAndInstall(dir, options, true, { tarball, pinnedToolkit: true, peers: sdks }, outcomes, notes);
  }
  if (updatedCi !== ci) writeScaffoldFile(ciFile, updatedCi);
  outcomes.unshift({ path: ".gitlab-ci.yml", outcome: updatedCi === ci ? "unchanged" : "updated" });
  return { dir, version, files: outcomes, notes, installed, update: true };
}

/** The lockfile entries the toolkit being pinned was tested with: the tarball's, else the running toolkit's. */
function testedOf(tarball: ToolkitTarball | undefined): TestedDependencies {
  return tarball?.tested ?? runningTestedDependencies(Object.values(STORE_SDKS).filter((name): name is string => name !== undefined));
}

/**
 * The toolkit's `allowScripts` decisions (npm 11) for the packages the models repository will install: its
 * install then runs (or skips) the same install scripts as the toolkit's tested one, and npm does not warn
 * about them at every install (protobufjs's postinstall, under the Google SDK, only checks a version range).
 */
function allowScriptsFor(tarball: ToolkitTarball | undefined, tested: TestedDependencies, peers: readonly string[]): Record<string, boolean> {
  const decisions = (tarball?.manifest.allowScripts ?? toolkitAllowScripts()) as Record<string, boolean>;
  const installed = new Set(
    [...Object.keys(tested.runtime), ...peers.flatMap((name) => Object.keys(tested.peers[name] ?? {}))].map((path) => path.slice(path.lastIndexOf("node_modules/") + "node_modules/".length)),
  );
  return Object.fromEntries(Object.entries(decisions).filter(([name]) => installed.has(name)));
}

/** The tarball into vendor/, and the tarballs it replaced. */
function vendored(dir: string, tarball: ToolkitTarball): Array<{ path: string; outcome: FileOutcome }> {
  const before = readIfPresent(join(dir, tarball.vendored)) !== undefined;
  const { removed } = vendorTarball(dir, tarball);
  return [{ path: tarball.vendored, outcome: before ? "unchanged" : "created" }, ...removed.map((path) => ({ path, outcome: "removed" as const }))];
}

/** package-lock.json seeded with the tested versions, then npm install (or only the lockfile); whether it installed. */
function lockAndInstall(
  dir: string,
  options: InitOptions,
  dependencyChanged: boolean,
  seed: { tarball: ToolkitTarball | undefined; pinnedToolkit: boolean; peers: readonly string[] },
  outcomes: Array<{ path: string; outcome: FileOutcome }>,
  notes: string[],
): boolean {
  const lockfile = join(dir, "package-lock.json");
  const before = readIfPresent(lockfile);
  if (options.lockfile === false) {
    notes.push(before !== undefined ? "package-lock.json left as it is (--no-lockfile)" : "no package-lock.json written (--no-lockfile): run `npm install` to write it");
    return false;
  }
  if (!dependencyChanged && before !== undefined) {
    outcomes.push({ path: "package-lock.json", outcome: "unchanged" });
    return false;
  }
  const tested = testedOf(seed.tarball);
  seedLockfile(dir, readIfPresent(join(dir, "package.json")) as string, before, { tested, peers: seed.peers, toolkitEntry: seed.tarball?.lockEntry, toolkitPinned: seed.pinnedToolkit });
  const install = options.install !== false;
  npmInstall(dir, !install, options.env);
  outcomes.push({ path: "package-lock.json", outcome: before !== undefined ? "updated" : "created" });
  // Without the install, the report's "Next:" starts with it.
  if (install) outcomes.push({ path: "node_modules/", outcome: "updated" });
  return install;
}

/** A file the machine will not let us write (permissions, a directory in its place) is the environment's failure, named. */
function writeScaffoldFile(file: string, content: string): void {
  try {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, content);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === undefined) throw error;
    throw new OperationalError(`cannot write ${file}: ${code}`, { cause: error });
  }
}

export function formatInitReport(result: InitResult): string {
  const width = Math.max(...result.files.map((file) => file.outcome.length));
  const model = result.files.find((file) => /^models\/(?!schema\.json$)/.test(file.path));
  const cell = model ? model.path.replace(/^models\/|\.yaml$/g, "") : "<cell>";
  // npx --no-install: runs the toolkit this repository installed, never one fetched by its name.
  const npx = (subcommand: "provision" | "prepare") => toolkitCommand(INSTALLED_TOOLKIT, subcommand);
  const install = result.installed || (result.update && !result.files.some((file) => file.path === "package.json")) ? [] : ["  npm install                                     # installs what package.json pins (init did not)"];
  const next = result.update
    ? [...install, "  commit the changed files in one merge request: its review note shows the change (an upgrade with its changelog)", `  ${npx("prepare")}                  # refreshes models/schema.json for the new version`]
    : [
        ...install,
        `  ${npx("provision")} --model ${cell} --dry-run`,
        `  then edit models/${cell}.yaml (every acme-... and example.com value) and read README.md`,
      ];
  return [
    `runner-fleet ${result.version}: models repository in ${result.dir}`,
    ...result.files.map((file) => `  ${file.outcome.padEnd(width)}  ${file.path}`),
    ...result.notes.map((note) => `note: ${note}`),
    "",
    "Next:",
    ...next,
    "",
  ].join("\n");
}

export function initCommand(): Command {
  return cliCommand("init")
    .description("Write a models repository into a directory: an example model, its schema, a pipeline, package.json and its lockfile, a README.")
    .addArgument(new Argument("[dir]", "the repository's directory (created when missing)").default(".", "the current directory"))
    .addOption(withDefault(new Option("--cloud <cloud>", "the example cell's cloud").choices(CLOUDS), "google", "google"))
    .addOption(withDefault(new Option("--cell <id>", "the example cell's id (and file name)"), "cell-1", "cell-1"))
    .addOption(withDefault(new Option("--component-project <path>", "the GitLab project hosting the runner-fleet component"), PLACEHOLDER_COMPONENT_PROJECT))
    .option("--force", "overwrite the files init writes, and pin runner-fleet at this version in package.json")
    .option("--no-lockfile", "write no package-lock.json and install nothing (no registry needed)")
    .option("--no-install", "write package-lock.json only (`npm install --package-lock-only`), install nothing")
    .option("--toolkit-tarball <file>", "runner-fleet from this package file (npm pack's .tgz), kept in vendor/ and pinned there: installs from a clone with no registry")
    .option("--update", "in an existing models repository, change only what --component-project and --toolkit-tarball name (.gitlab-ci.yml's include; the vendored toolkit, its pin and lockfile)")
    .option("--npm-registry <url>", "install runner-fleet from this npm registry (a GitLab project's: https://<gitlab>/api/v4/projects/<id>/packages/npm/): a .npmrc for it, with the token from $RUNNER_FLEET_NPM_TOKEN")
    .addHelpText(
      "after",
      "\nExamples:\n  npx --no-install runner-fleet init --cloud aws --cell cell-fra1 --component-project platform/runner-fleet\n" +
        "  npx --no-install runner-fleet init --toolkit-tarball ../runner-fleet-1.2.0.tgz\n" +
        "  npx --no-install runner-fleet init --update --component-project platform/ci/runner-fleet\n" +
        "  npx --no-install runner-fleet init --update --toolkit-tarball ../runner-fleet-1.3.0.tgz      # an upgrade\n" +
        "\nExit codes: 0 ok, 2 a file in the way (nothing written) or bad input, 1 npm could not write the lockfile or install.",
    )
    .action((dir: string, flags: { cloud: Cloud; cell: string; componentProject?: string; force?: boolean; lockfile: boolean; install: boolean; npmRegistry?: string; toolkitTarball?: string; update?: boolean }, command: Command) => {
      // The placeholder default is not a request to change the path: --update only changes what was given.
      const componentProject = command.getOptionValueSource("componentProject") === "cli" ? flags.componentProject : undefined;
      const result = runInit({ dir, ...flags, componentProject });
      process.stdout.write(formatInitReport(result));
    });
}
