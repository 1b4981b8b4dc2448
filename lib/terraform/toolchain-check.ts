/**
 * What the machine offers: Node's version and a Terraform-compatible engine.
 * Only an engine that answers `version -json` with a usable version counts.
 */
import { spawnSync } from "node:child_process";
import { accessSync, constants, statSync } from "node:fs";
import { delimiter, join } from "node:path";
// Each function's module, not the package's index: the index loads all of semver (its ranges build comparators as they load), ~10 ms of every command's start.
import coerce from "semver/functions/coerce";
import gte from "semver/functions/gte";

export const MIN_NODE_VERSION = "20.9.0";
export const MIN_ENGINE_VERSION = "1.5.0";
/** The engines that plan and apply, in preference order: the one list of their names. */
export const ENGINE_NAMES = ["terraform", "tofu"] as const;
export type EngineName = (typeof ENGINE_NAMES)[number];
/** How each engine's maker names it in messages. */
export const ENGINE_PRODUCTS: Readonly<Record<EngineName, string>> = { terraform: "Terraform", tofu: "OpenTofu" };

export interface EngineInfo {
  readonly name: EngineName;
  readonly version: string;
  readonly supported: boolean;
}

export interface ToolchainReport {
  readonly node: { readonly version: string; readonly supported: boolean };
  /** Every engine found on PATH, in preference order. */
  readonly engines: readonly EngineInfo[];
  /** The engine provisioning would use: the first supported one. */
  readonly engine?: EngineInfo;
}

export function checkToolchain(env: NodeJS.ProcessEnv = process.env): ToolchainReport {
  const nodeVersion = process.versions.node;
  const engines = ENGINE_NAMES.flatMap((name) => {
    const info = probeEngine(name, env);
    return info ? [info] : [];
  });
  return {
    node: { version: nodeVersion, supported: gte(nodeVersion, MIN_NODE_VERSION) },
    engines,
    engine: engines.find((engine) => engine.supported),
  };
}

/**
 * The answers engines gave in this process, by executable file and environment. A program that runs
 * several commands in one process (the package's API over many cells, the test suite) asks each engine
 * once: an engine is a large binary, about 50 ms of CPU to start. The key is the file PATH finds, as
 * it is now (device, inode, size, modification time), and the whole environment the engine is started
 * with, so a replaced binary or a changed variable is asked again. A start that failed (not found,
 * timed out, killed) is never kept.
 */
const engineAnswers = new Map<string, EngineInfo | undefined>();

/** `terraform version -json` and `tofu version -json` both answer {"terraform_version": "..."}. */
export function probeEngine(name: EngineName, env: NodeJS.ProcessEnv = process.env): EngineInfo | undefined {
  const executable = executableOnPath(name, env);
  // No such file on PATH: not found, without a process started to learn it (prepare asks for both engines,
  // and most machines have one). Without PATH, execvp searches a default path of its own: the spawn decides.
  if (executable === undefined && env.PATH !== undefined) return undefined;
  const key = executable && JSON.stringify([name, executable, Object.entries(env).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))]);
  if (key && engineAnswers.has(key)) return engineAnswers.get(key);
  const result = spawnSync(name, ["version", "-json"], { env, encoding: "utf8", timeout: 15_000 });
  if (result.error || result.signal) return undefined;
  const answer = result.status === 0 ? engineInfo(name, result.stdout) : undefined;
  if (key) engineAnswers.set(key, answer);
  return answer;
}

/** The engine's version answer read, or undefined when it is not one. */
function engineInfo(name: EngineName, stdout: string): EngineInfo | undefined {
  try {
    const version = String((JSON.parse(stdout) as { terraform_version?: string }).terraform_version ?? "");
    const clean = coerce(version)?.version;
    if (!clean) return undefined;
    return { name, version: clean, supported: gte(clean, MIN_ENGINE_VERSION) };
  } catch {
    return undefined;
  }
}

/**
 * The file a spawn of `name` with this environment runs, as execvp looks it up on the environment's PATH
 * (an empty entry is the working directory), with its identity; undefined when there is none.
 */
function executableOnPath(name: string, env: NodeJS.ProcessEnv): string | undefined {
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    const file = join(dir === "" ? process.cwd() : dir, name);
    try {
      accessSync(file, constants.X_OK);
      const stat = statSync(file, { bigint: true });
      if (!stat.isFile()) continue;
      return `${file}:${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeNs}`;
    } catch {
      // not here, or not executable: execvp goes on to the next entry too
    }
  }
  return undefined;
}
