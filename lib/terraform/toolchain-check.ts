/**
 * What the machine offers: Node's version and a Terraform-compatible engine.
 * Only an engine that answers `version -json` with a usable version counts.
 */
import { spawnSync } from "node:child_process";
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

/** `terraform version -json` and `tofu version -json` both answer {"terraform_version": "..."}. */
export function probeEngine(name: EngineName, env: NodeJS.ProcessEnv = process.env): EngineInfo | undefined {
  const result = spawnSync(name, ["version", "-json"], { env, encoding: "utf8", timeout: 15_000 });
  if (result.error || result.status !== 0) return undefined;
  try {
    const version = String((JSON.parse(result.stdout) as { terraform_version?: string }).terraform_version ?? "");
    const clean = coerce(version)?.version;
    if (!clean) return undefined;
    return { name, version: clean, supported: gte(clean, MIN_ENGINE_VERSION) };
  } catch {
    return undefined;
  }
}
