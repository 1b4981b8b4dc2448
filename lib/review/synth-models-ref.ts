/**
 * Synthesis of one side of a review in a models repository: a repository that holds the models and
 * pins runner-fleet in its package-lock.json, without the toolkit's source. There a ref's "own code"
 * is the toolkit version its lockfile pins, so each side is synthesized by that version:
 * - the version running this review when the pins agree (the usual merge request: only models changed);
 * - otherwise the pinned version, installed with `npm ci` into the ref's checkout, or once per lockfile into
 *   the synth cache when there is one (./synth-cache.ts; a merge request
 *   that moves the pin: the base side is synthesized by the old toolkit, the head side by the new one,
 *   and the review shows what the upgrade changes in every stack).
 * The toolkit synthesizes through its own `provision --dry-run` (no GitLab, no cloud, no engine), which
 * writes the synth contract of ./synth-ref.ts: `<out>/stacks/<cell>/cdk.tf.json` and `rendered/`.
 */
import { execFile } from "node:child_process";
import { copyFileSync, existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { PROJECT_ROOT } from "../files/project-root";
import { listModelFiles } from "../model/model-files";
import { OperationalError, UserInputError } from "../process/errors";
import { killOnInterrupt } from "../process/interrupt";
import { redactSecrets } from "../text/redact";
import { cacheKey, cachedDirectory, synthCacheDir } from "./synth-cache";
import { pinnedVersion, TOOLKIT_PACKAGE } from "./toolkit-upgrade";

/** The runner-fleet version a checkout's package-lock.json pins: set only in a models repository. */
export function pinnedToolkitOf(checkout: string): string | undefined {
  const lockfile = join(checkout, "package-lock.json");
  return existsSync(lockfile) ? pinnedVersion(readFileSync(lockfile, "utf8")) : undefined;
}

function versionAt(toolkitDir: string): string | undefined {
  try {
    return String((JSON.parse(readFileSync(join(toolkitDir, "package.json"), "utf8")) as { version?: unknown }).version);
  } catch {
    return undefined;
  }
}

export interface ModelsSynthOptions {
  /** The checkout's models directory (absolute). */
  readonly modelsPath: string;
  /** Only these cells. @default - every model */
  readonly cells?: readonly string[];
  readonly timeoutMs: number;
  /** Where the running toolkit is. @default PROJECT_ROOT */
  readonly runningToolkitDir?: string;
}

/** Synthesizes the models of `checkout` into `outdir` with the toolkit version the checkout pins. */
export async function synthModelsCheckout(checkout: string, outdir: string, label: string, options: ModelsSynthOptions): Promise<void> {
  const pinned = pinnedToolkitOf(checkout);
  if (pinned === undefined) throw new OperationalError(`cannot synthesize ${label}: its package-lock.json pins no ${TOOLKIT_PACKAGE}`);
  const models = options.cells ? options.cells.map((cell) => join(options.modelsPath, `${cell}.yaml`)) : listModelFiles(options.modelsPath);
  if (models.length === 0) return;
  const toolkitDir = await toolkitFor(checkout, pinned, label, options);
  const runnerFleet = join(toolkitDir, "bin", "runner-fleet.js");
  // Toolkits from before the single bin have bin/provision.
  const [entry, args] = existsSync(runnerFleet) ? [runnerFleet, ["provision"]] : [join(toolkitDir, "bin", "provision"), []];
  const modelArgs = models.flatMap((model) => ["--model", existsSync(model) ? model : model.replace(/\.yaml$/, ".yml")]);
  await run(process.execPath, [entry, ...args, "--dry-run", "--models-dir", options.modelsPath, "--out", outdir, ...modelArgs], {
    cwd: checkout,
    timeout: options.timeoutMs,
    env: { ...process.env, RUNNER_MODELS_DIR: options.modelsPath },
    what: `synth of ${label} with ${TOOLKIT_PACKAGE} ${pinned}`,
  });
}

/** The directory of the toolkit at `version`: the running one, the checkout's installed one, or one `npm ci` installs there now. */
async function toolkitFor(checkout: string, version: string, label: string, options: ModelsSynthOptions): Promise<string> {
  const running = options.runningToolkitDir ?? PROJECT_ROOT;
  if (versionAt(running) === version) return running;
  const installed = join(checkout, "node_modules", TOOLKIT_PACKAGE);
  if (versionAt(installed) === version) return installed;
  if (existsSync(join(checkout, "node_modules"))) {
    throw new UserInputError(
      `cannot synthesize ${label}: it pins ${TOOLKIT_PACKAGE} ${version}, but ${versionAt(installed) ?? "no version"} is installed in ${checkout}; run \`npm ci\``,
    );
  }
  // A checkout of another ref (a temporary worktree): install exactly what its lockfile pins, once per
  // lockfile with the synth cache (both sides of a review that pin the same version, and later reviews).
  const install = async (dir: string) => {
    await run("npm", ["ci", "--no-audit", "--no-fund", "--prefer-offline"], { cwd: dir, timeout: options.timeoutMs, what: `npm ci of ${label} (${TOOLKIT_PACKAGE} ${version})` });
    const toolkit = join(dir, "node_modules", TOOLKIT_PACKAGE);
    if (versionAt(toolkit) !== version) throw new OperationalError(`npm ci of ${label} did not install ${TOOLKIT_PACKAGE} ${version} (found ${versionAt(toolkit) ?? "none"})`);
  };
  const shared = sharedInstall(checkout);
  let root = checkout;
  if (shared) {
    root = await cachedDirectory(shared.cacheDir, shared.key, async (directory) => {
      for (const file of INSTALL_INPUTS) copyFileSync(join(checkout, file), join(directory, file));
      await install(directory);
    });
  } else {
    await install(checkout);
  }
  return join(root, "node_modules", TOOLKIT_PACKAGE);
}

/** What `npm ci` installs from. */
const INSTALL_INPUTS = ["package.json", "package-lock.json"];

/**
 * Where the install of `checkout`'s lockfile is kept in the synth cache ($RUNNER_FLEET_SYNTH_CACHE): keyed by
 * the files npm ci reads and the node version. Not when the install depends on the checkout's place or
 * settings: a relative `file:` dependency, or an .npmrc (which may also hold a registry token).
 */
function sharedInstall(checkout: string): { cacheDir: string; key: string } | undefined {
  const cacheDir = synthCacheDir();
  if (!cacheDir || existsSync(join(checkout, ".npmrc"))) return undefined;
  const inputs = INSTALL_INPUTS.map((file) => readFileSync(join(checkout, file), "utf8"));
  if (inputs.some((text) => /"file:(?!\/)/.test(text))) return undefined;
  return { cacheDir, key: cacheKey("toolkit", [process.version, ...inputs]) };
}

function run(file: string, args: readonly string[], options: { cwd: string; timeout: number; env?: NodeJS.ProcessEnv; what: string }): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const child = execFile(file, [...args], { cwd: options.cwd, env: options.env, timeout: options.timeout, maxBuffer: 64 * 1024 * 1024, encoding: "utf8" }, (error, stdout, stderr) => {
      if (!error) {
        resolvePromise();
        return;
      }
      const code = typeof error.code === "number" ? error.code : undefined;
      const tail = `${stderr}\n${stdout}`.trim().split("\n").slice(-15).join("\n");
      const reason = error.killed ? `timed out after ${options.timeout} ms` : code !== undefined ? `exit ${code}` : error.message;
      const message = redactSecrets(`${options.what} failed: ${reason}${tail ? `\n${tail}` : ""}`);
      // Exit 2 is the toolkit's invalid-input exit (an invalid model): the review's too.
      reject(code === 2 ? new UserInputError(message) : new OperationalError(message));
    });
    killOnInterrupt(child);
  });
}
