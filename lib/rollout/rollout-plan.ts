/**
 * A change's rollout as the apply child pipeline and the review see it: the policy (read once from
 * rollout.yaml beside the models directory, or the defaults) and the waves of the changed cells.
 * A cell's labels are read from its model's cell.labels; a model that cannot be read has none here
 * (prepare refuses it before any apply).
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { parse } from "yaml";
import { modelsDir as resolveModelsDir } from "../files/workspace";
import { loadRolloutPolicy } from "./load-policy";
import type { RolloutPolicy } from "./policy-schema";
import { planWaves, type PlannedWave } from "./waves";

export interface RolloutPlan {
  /** The policy file, or undefined when the defaults apply. */
  readonly policyFile?: string;
  readonly policy: RolloutPolicy;
  /** Empty when fewer than two cells change. */
  readonly waves: readonly PlannedWave[];
}

export interface RolloutPlanOptions {
  readonly cwd: string;
  readonly modelsDir?: string;
  readonly cells: readonly string[];
  /** Labels of a cell, when the caller has the models already. @default - read from <models>/<cell>.yaml */
  readonly labelsOf?: (cell: string) => Readonly<Record<string, string>> | undefined;
}

/** The workspace (where rollout.yaml lives) of a models directory, as lib/files/workspace.ts workspaceDir decides it. */
export function rolloutWorkspace(cwd: string, modelsDir?: string): string {
  const models = resolve(cwd, resolveModelsDir(modelsDir));
  return models === resolve(cwd) ? models : dirname(models);
}

export function planRollout(options: RolloutPlanOptions): RolloutPlan {
  const models = resolve(options.cwd, resolveModelsDir(options.modelsDir));
  const { file, policy } = loadRolloutPolicy(rolloutWorkspace(options.cwd, options.modelsDir));
  const cells = options.cells.map((cell) => ({ cell, labels: options.labelsOf?.(cell) ?? readLabels(join(models, `${cell}.yaml`)) }));
  return { ...(file ? { policyFile: file } : {}), policy, waves: planWaves(cells, policy) };
}

function readLabels(file: string): Readonly<Record<string, string>> {
  if (!existsSync(file)) return {};
  try {
    const labels = (parse(readFileSync(file, "utf8")) as { cell?: { labels?: unknown } } | null)?.cell?.labels;
    if (!labels || typeof labels !== "object") return {};
    return Object.fromEntries(Object.entries(labels).filter((entry): entry is [string, string] => typeof entry[1] === "string"));
  } catch {
    return {};
  }
}
