/**
 * A model shard as the GitLab runner it should be, and how an existing runner
 * differs from it. Pure functions: no I/O.
 */
import { UserInputError } from "../process/errors";
import { parseGoDurationSeconds } from "../model/duration";
import { runnerDescription } from "../model/names";
import type { RunnerModel, Shard } from "../model/schema";
import type { NewRunner, RunnerDetails, RunnerScope, RunnerSettings, RunnerTypeName } from "./client";
import { cellTag, cellTagProblem } from "../model/cell-tag";

/** The name this tool signs its runners with. */
export const TOOL_NAME = "runner-fleet onboard";

/**
 * Machine-readable identity of a shard's runner, kept in its maintenance note:
 * `[runner-fleet cell=<cell> shard=<shard>]`. Cell ids and shard names are DNS labels,
 * so the marker cannot be confused with another shard's.
 */
export function runnerMarker(model: RunnerModel, shard: Shard): string {
  return `[runner-fleet cell=${model.cell.id} shard=${shard.name}]`;
}

/**
 * Whether a runner carries the shard's marker (in its maintenance note, or its description as a fallback);
 * for a renamed shard, its former name's marker too: its runner carries that one until onboard renames it.
 */
export function hasRunnerMarker(runner: Pick<RunnerDetails, "maintenance_note" | "description">, model: RunnerModel, shard: Shard): boolean {
  return carriesMarker(runner, runnerMarker(model, shard)) || formerMarkerOf(runner, model, shard) !== undefined;
}

/** The marker of the shard's former name (renamed_from), when the runner carries it. */
export function formerMarkerOf(runner: Pick<RunnerDetails, "maintenance_note" | "description">, model: RunnerModel, shard: Shard): string | undefined {
  if (shard.renamed_from === undefined) return undefined;
  const former = `[runner-fleet cell=${model.cell.id} shard=${shard.renamed_from}]`;
  return carriesMarker(runner, former) ? former : undefined;
}

function carriesMarker(runner: Pick<RunnerDetails, "maintenance_note" | "description">, marker: string): boolean {
  return Boolean(runner.maintenance_note?.includes(marker) || runner.description?.includes(marker));
}

export function maintenanceNote(model: RunnerModel, shard: Shard): string {
  return (
    `Managed by ${TOOL_NAME} for GitLab cell ${model.cell.id}, shard ${shard.name}. ` +
    `Change the cell's runner model instead of this runner: manual edits are reverted on the next onboard run. ` +
    runnerMarker(model, shard)
  );
}

const RUNNER_TYPES: Record<Shard["runner_type"], RunnerTypeName> = {
  instance: "instance_type",
  group: "group_type",
  project: "project_type",
};

/** GitLab refuses shorter maximum timeouts. */
export const MIN_MAXIMUM_TIMEOUT_SECONDS = 600;

/** The runner a shard asks for. Throws UserInputError for what GitLab would refuse anyway. */
export function desiredRunner(model: RunnerModel, shard: Shard): NewRunner {
  const where = `shard ${shard.name} of cell ${model.cell.id}`;
  const maximumTimeout = parseGoDurationSeconds(shard.maximum_timeout);
  if (maximumTimeout === undefined || maximumTimeout < MIN_MAXIMUM_TIMEOUT_SECONDS) {
    throw new UserInputError(`${where}: maximum_timeout must be a Go duration of at least 10m, received ${JSON.stringify(shard.maximum_timeout)}`);
  }
  if (shard.tags.length === 0 && !shard.run_untagged) {
    throw new UserInputError(`${where}: needs at least one tag, or run_untagged: true (GitLab refuses a runner that can pick no job)`);
  }
  const tagProblem = cellTagProblem(shard.tags);
  if (tagProblem) throw new UserInputError(`${where}: tags must be ${tagProblem.expected}; received ${JSON.stringify(tagProblem.received)}`);
  const runnerType = RUNNER_TYPES[shard.runner_type];
  if (runnerType === "group_type" && shard.group_id === undefined) throw new UserInputError(`${where}: runner_type group needs group_id`);
  if (runnerType === "project_type" && shard.project_id === undefined) throw new UserInputError(`${where}: runner_type project needs project_id`);
  return {
    runner_type: runnerType,
    ...(runnerType === "group_type" ? { group_id: shard.group_id } : {}),
    ...(runnerType === "project_type" ? { project_id: shard.project_id } : {}),
    description: runnerDescription(model, shard),
    // The cell's tag comes last: how this cell's runners are listed at once (lib/model/cell-tag.ts).
    tag_list: [...shard.tags, cellTag(model)],
    run_untagged: shard.run_untagged,
    locked: shard.locked,
    access_level: shard.access_level,
    maximum_timeout: Math.round(maximumTimeout),
    paused: shard.paused,
    maintenance_note: maintenanceNote(model, shard),
  };
}

/** Where the shard's runner is listed: its owner's listing of its type, and there the runners carrying `tags` (all of them: none given). */
export function runnerScope(runner: NewRunner, tags: readonly string[] = []): RunnerScope {
  return { runnerType: runner.runner_type, groupId: runner.group_id, projectId: runner.project_id, ...(tags.length > 0 ? { tags } : {}) };
}

/** The settings whose value differs, with the desired value. Tags compare as sets. */
export function diffRunner(desired: RunnerSettings, actual: RunnerDetails): Partial<RunnerSettings> {
  const changes: Record<string, unknown> = {};
  const sameTags = sortedUnique(desired.tag_list).join("\n") === sortedUnique(actual.tag_list ?? []).join("\n");
  if (!sameTags) changes.tag_list = [...desired.tag_list];
  if ((actual.description ?? "") !== desired.description) changes.description = desired.description;
  if (actual.run_untagged !== desired.run_untagged) changes.run_untagged = desired.run_untagged;
  if (actual.locked !== desired.locked) changes.locked = desired.locked;
  if (actual.access_level !== desired.access_level) changes.access_level = desired.access_level;
  if (actual.maximum_timeout !== desired.maximum_timeout) changes.maximum_timeout = desired.maximum_timeout;
  if (actual.paused !== desired.paused) changes.paused = desired.paused;
  if ((actual.maintenance_note ?? "") !== desired.maintenance_note) changes.maintenance_note = desired.maintenance_note;
  return changes as Partial<RunnerSettings>;
}

/** The part of a desired runner that PUT /runners/:id can change. */
export function runnerSettings(runner: NewRunner): RunnerSettings {
  const { description, tag_list, run_untagged, locked, access_level, maximum_timeout, paused, maintenance_note } = runner;
  return { description, tag_list, run_untagged, locked, access_level, maximum_timeout, paused, maintenance_note };
}

/** "tag_list: [a] -> [a, b]" lines for a dry run; the maintenance note is shown by name only. */
export function describeChanges(changes: Partial<RunnerSettings>, actual?: RunnerDetails): string[] {
  return Object.entries(changes).map(([field, value]) => {
    if (field === "maintenance_note" || !actual) return field;
    // Every settings field is also a field of RunnerDetails, under the same GitLab name.
    const before = actual[field as keyof RunnerSettings];
    return `${field}: ${JSON.stringify(before)} -> ${JSON.stringify(value)}`;
  });
}

function sortedUnique(values: readonly string[]): string[] {
  return [...new Set(values)].sort();
}
