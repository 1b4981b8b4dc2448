/**
 * A value a cell has once (its GitLab, region, project, network), read from every imported runner that
 * says it: the one value they agree on, or exit 2 naming each runner's. Runners that do not say it are
 * not asked.
 */
import { UserInputError } from "../../lib/process/errors";
import type { RunnerShard } from "./runner-shard";

export function agreeingValue(runners: readonly RunnerShard[], pick: (runner: RunnerShard) => string | undefined, key: string, problem: string): string | undefined {
  const values = new Map<string, string>();
  for (const runner of runners) {
    const value = pick(runner);
    if (value !== undefined && !values.has(value)) values.set(value, runner.where);
  }
  if (values.size > 1) {
    throw new UserInputError(`${problem}: ${[...values].map(([value, where]) => `${where} ${key} = ${JSON.stringify(value)}`).join("; ")}`);
  }
  return [...values.keys()][0];
}
