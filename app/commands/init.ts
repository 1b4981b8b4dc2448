/**
 * `init`: turns an empty directory (or a new git repository) into a models repository that works:
 * models/<cell>.yaml (a commented example, --cloud google|aws), models/schema.json, a .gitlab-ci.yml
 * that includes the toolkit's CI/CD component at this version, package.json pinning runner-fleet at
 * this version (and the SDK of the example's secret store) with its lockfile, a README for the team
 * and a .gitignore.
 *
 * It never overwrites a file without --force: every file in the way is listed and nothing is written
 * (exit 2). package.json and .gitignore are merged into, not replaced, so `npm install runner-fleet &&
 * npx runner-fleet init` works; package.json's runner-fleet pin changes only with --force.
 */
import { mkdirSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { Argument, Option, type Command } from "commander";
import { cliCommand, packageVersion, withDefault } from "../cli/options";
import { OperationalError, UserInputError } from "../../lib/process/errors";
import { CLOUDS, PLACEHOLDER_COMPONENT_PROJECT, scaffoldFiles, type Cloud } from "../init/scaffold-files";
import { packageManifest, readIfPresent } from "../init/package-manifest";
import { writeLockfile } from "../init/lockfile";
import { NPM_TOKEN_VARIABLE, npmRegistryUrl } from "../init/npmrc";

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
  /** Write package-lock.json with npm (needs the registry). @default true */
  readonly lockfile?: boolean;
  /** The toolkit version to pin. @default this package's version */
  readonly version?: string;
  /** A GitLab project's npm registry runner-fleet is installed from: a `.npmrc` for it (app/init/npmrc.ts). @default - none */
  readonly npmRegistry?: string;
  readonly env?: NodeJS.ProcessEnv;
}

export type FileOutcome = "created" | "overwritten" | "updated" | "unchanged";

export interface InitResult {
  readonly dir: string;
  readonly version: string;
  readonly files: ReadonlyArray<{ readonly path: string; readonly outcome: FileOutcome }>;
  readonly notes: readonly string[];
}

export function runInit(options: InitOptions = {}): InitResult {
  const dir = resolve(options.dir ?? ".");
  const version = options.version ?? packageVersion();
  const componentProject = options.componentProject ?? PLACEHOLDER_COMPONENT_PROJECT;
  if (!/^[\w.-]+(\/[\w.-]+)+$/.test(componentProject)) {
    throw new UserInputError(`--component-project: expected a GitLab project's full path such as platform/runner-fleet, received ${JSON.stringify(componentProject)}`);
  }
  const npmRegistry = options.npmRegistry === undefined ? undefined : npmRegistryUrl(options.npmRegistry);
  if (statSync(dir, { throwIfNoEntry: false })?.isDirectory() === false) throw new UserInputError(`${dir}: expected a directory (or a path to create one at), received a file`);
  const force = options.force ?? false;
  const { files, packages } = scaffoldFiles({ cloud: options.cloud ?? "google", cell: options.cell ?? "cell-1", version, componentProject, npmRegistry });

  const existing = new Map(files.map((file) => [file.path, readIfPresent(join(dir, file.path))]));
  const inTheWay = files.filter((file) => existing.get(file.path) !== undefined && file.merge === undefined).map((file) => file.path);
  if (inTheWay.length > 0 && !force) {
    throw new UserInputError(`${dir} already has ${inTheWay.join(", ")}; nothing was written. Move them aside, or run again with --force to overwrite them`);
  }
  const manifestFile = join(dir, "package.json");
  const manifest = packageManifest(manifestFile, dir, version, force, readIfPresent(manifestFile), packages);

  const outcomes: Array<{ path: string; outcome: FileOutcome }> = [];
  for (const file of files) {
    const before = existing.get(file.path);
    const content = before !== undefined && file.merge ? file.merge(before) : file.content;
    if (before !== content) writeScaffoldFile(join(dir, file.path), content);
    const changed: FileOutcome = file.merge ? "updated" : "overwritten";
    outcomes.push({ path: file.path, outcome: before === undefined ? "created" : before === content ? "unchanged" : changed });
  }
  if (manifest.changed) writeScaffoldFile(manifestFile, manifest.content);
  outcomes.push({ path: "package.json", outcome: !manifest.existed ? "created" : manifest.changed ? "updated" : "unchanged" });

  const notes: string[] = [];
  if (manifest.keptSpec !== undefined) notes.push(`package.json keeps runner-fleet at ${manifest.keptSpec}; --force pins it at ${version}`);
  if (componentProject === PLACEHOLDER_COMPONENT_PROJECT) {
    notes.push(`.gitlab-ci.yml includes the component from ${PLACEHOLDER_COMPONENT_PROJECT}: replace it with the project that hosts runner-fleet on your GitLab (or run init again with --force --component-project <group/project>)`);
  }
  if (npmRegistry !== undefined) {
    notes.push(
      `.npmrc installs runner-fleet from ${npmRegistry}: for a private project, export $${NPM_TOKEN_VARIABLE} (a token with read_package_registry) before npm install here, ` +
        "and let this repository's pipelines in with their job token (that project's Settings > CI/CD > Job token permissions)",
    );
  }
  const lockfile = join(dir, "package-lock.json");
  const hasLockfile = readIfPresent(lockfile) !== undefined;
  if (options.lockfile === false) {
    notes.push(hasLockfile ? "package-lock.json left as it is (--no-lockfile)" : "no package-lock.json written (--no-lockfile): run `npm install` to write it");
  } else if (manifest.dependencyChanged || !hasLockfile) {
    writeLockfile(dir, options.env);
    outcomes.push({ path: "package-lock.json", outcome: hasLockfile ? "updated" : "created" });
  } else {
    outcomes.push({ path: "package-lock.json", outcome: "unchanged" });
  }
  return { dir, version, files: outcomes, notes };
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
  return [
    `runner-fleet ${result.version}: models repository in ${result.dir}`,
    ...result.files.map((file) => `  ${file.outcome.padEnd(width)}  ${file.path}`),
    ...result.notes.map((note) => `note: ${note}`),
    "",
    "Next:",
    "  npm install                                     # if node_modules/ is not there yet",
    `  npx runner-fleet provision --model ${cell} --dry-run`,
    `  then edit models/${cell}.yaml (every acme-... and example.com value) and read README.md`,
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
    .option("--no-lockfile", "do not run `npm install --package-lock-only` (no registry needed)")
    .option("--npm-registry <url>", "install runner-fleet from this npm registry (a GitLab project's: https://<gitlab>/api/v4/projects/<id>/packages/npm/): a .npmrc for it, with the token from $RUNNER_FLEET_NPM_TOKEN")
    .addHelpText("after", "\nExit codes: 0 ok, 2 a file in the way (nothing written) or bad input, 1 npm could not write the lockfile.")
    .action((dir: string, flags: { cloud: Cloud; cell: string; componentProject?: string; force?: boolean; lockfile: boolean; npmRegistry?: string }) => {
      const result = runInit({ dir, ...flags });
      process.stdout.write(formatInitReport(result));
    });
}
