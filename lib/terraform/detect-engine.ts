/**
 * Which engine to run: the one asked for, or the first supported of terraform
 * and tofu found on PATH. Never silently swaps an engine that was asked for.
 */
import { OperationalError } from "../process/errors";
import { ENGINE_NAMES, ENGINE_PRODUCTS, MIN_ENGINE_VERSION, probeEngine, type EngineInfo, type EngineName } from "./toolchain-check";

export type EngineProbe = (name: EngineName, env: NodeJS.ProcessEnv) => EngineInfo | undefined;

export function detectEngine(
  preferred?: EngineName,
  env: NodeJS.ProcessEnv = process.env,
  probe: EngineProbe = probeEngine,
): EngineInfo {
  const candidates = preferred ? [preferred] : ENGINE_NAMES;
  const looked: string[] = [];
  for (const name of candidates) {
    const info = probe(name, env);
    if (info?.supported) return info;
    looked.push(info ? `${name} ${info.version} (too old, need >= ${MIN_ENGINE_VERSION})` : `${name} (not found on PATH or did not answer \`${name} version -json\`)`);
  }
  const install = preferred
    ? `Install ${ENGINE_PRODUCTS[preferred]} >= ${MIN_ENGINE_VERSION}, or choose the other engine.`
    : `Install ${ENGINE_NAMES.map((name) => `${ENGINE_PRODUCTS[name]} >= ${MIN_ENGINE_VERSION}`).join(" or ")}.`;
  throw new OperationalError(`no usable Terraform engine: looked for ${looked.join(", ")}. ${install}`);
}
