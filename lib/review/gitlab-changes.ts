/**
 * What onboarding will change in GitLab after the merge, per shard, derived from the models of both
 * sides (a merge request pipeline has no admin token, and needs none: the runner a shard asks for is
 * a pure function of the model, lib/gitlab/runner-spec.ts desiredRunner, the same one onboard
 * reconciles against). A tag or run_untagged change reroutes jobs the moment onboard runs, with no
 * infrastructure change at all, so the review must show it as a change of its own.
 */
import type { NewRunner } from "../gitlab/client";
import { desiredRunner } from "../gitlab/runner-spec";
import type { RunnerModel, Shard } from "../model/schema";
import { shardMatches } from "../simulate/route-jobs";
import type { CellSides } from "./model-sides";

/** The runner settings onboard reconciles, in the order a reviewer reads them. */
const SETTINGS = ["description", "tag_list", "run_untagged", "locked", "access_level", "maximum_timeout", "paused", "runner_type", "group_id", "project_id"] as const;
type Setting = (typeof SETTINGS)[number];

export interface RunnerSettingChange {
  readonly setting: Setting;
  readonly before: string;
  readonly after: string;
}

export type ShardRunnerChange =
  /** A new shard: onboard creates its runner. */
  | { readonly shard: string; readonly kind: "create"; readonly runner: string }
  /** A shard whose runner settings change: onboard updates the runner in place (same runner, same token). */
  | { readonly shard: string; readonly kind: "update"; readonly settings: readonly RunnerSettingChange[] }
  /**
   * A shard renamed with renamed_from: onboard keeps its runner and token and renames the runner in place
   * (description, when it is the default, and the marker of its maintenance note); `settings` lists every
   * setting that changes, the rename's included.
   */
  | { readonly shard: string; readonly kind: "rename"; readonly from: string; readonly settings: readonly RunnerSettingChange[] }
  /**
   * A shard gone from the model: the apply deletes its VMs and, with `cache`, its cache bucket and the
   * objects in it (the cache is disposable: force_destroy on both clouds); its runner stays registered,
   * and may still take jobs while its managers run, until it is pruned.
   */
  | { readonly shard: string; readonly kind: "left-registered"; readonly tags: readonly string[]; readonly cache: boolean };

export interface CellGitLabChange {
  readonly cell: string;
  readonly shards: readonly ShardRunnerChange[];
  /** What needs a decision: jobs that lose their runner. */
  readonly warnings: readonly string[];
}

export function gitlabChanges(sides: readonly CellSides[]): CellGitLabChange[] {
  return sides.flatMap(({ cell, base, head }) => {
    const before = base.loaded?.model;
    const after = head.loaded?.model;
    // A model a side cannot read fails that side's synth, which the review reports; a deleted model is reported as such.
    if (!after) return [];
    const shards = runnerChanges(before, after);
    // Two shards that take untagged jobs is a model warning (prepare's), which the review shows already.
    const warnings = strandedTags(before, after);
    return shards.length > 0 || warnings.length > 0 ? [{ cell: cell.cell, shards, warnings }] : [];
  });
}

function runnerChanges(before: RunnerModel | undefined, after: RunnerModel): ShardRunnerChange[] {
  const changes: ShardRunnerChange[] = [];
  for (const shard of after.shards) {
    const now = runnerOf(after, shard);
    if (!now) continue;
    const was = before?.shards.find((entry) => entry.name === shard.name) ?? renamedFrom(before, shard);
    const then = was && before ? runnerOf(before, was) : undefined;
    if (!then || !was) {
      changes.push({ shard: shard.name, kind: "create", runner: describeRunner(now) });
      continue;
    }
    const settings = SETTINGS.flatMap((setting): RunnerSettingChange[] => {
      const [a, b] = [shown(then, setting), shown(now, setting)];
      return a === b ? [] : [{ setting, before: a, after: b }];
    });
    if (was.name !== shard.name) changes.push({ shard: shard.name, kind: "rename", from: was.name, settings });
    else if (settings.length > 0) changes.push({ shard: shard.name, kind: "update", settings });
  }
  for (const shard of before?.shards ?? []) {
    if (after.shards.some((entry) => entry.name === shard.name || renamedFrom(before, entry) === shard)) continue;
    changes.push({ shard: shard.name, kind: "left-registered", tags: shard.tags, cache: shard.cache.enabled });
  }
  return changes;
}

/** The base's shard a head shard is renamed from (renamed_from), when the base has it and no shard of the head's name. */
function renamedFrom(before: RunnerModel | undefined, shard: Shard): Shard | undefined {
  if (shard.renamed_from === undefined || before?.shards.some((entry) => entry.name === shard.name)) return undefined;
  return before?.shards.find((entry) => entry.name === shard.renamed_from);
}

/** The runner a shard asks for; undefined for one GitLab would refuse (prepare and the synth say why). */
function runnerOf(model: RunnerModel, shard: Shard): NewRunner | undefined {
  try {
    return desiredRunner(model, shard);
  } catch {
    return undefined;
  }
}

function shown(runner: NewRunner, setting: Setting): string {
  const value = runner[setting];
  if (value === undefined) return "(none)";
  if (Array.isArray(value)) return `[${value.join(", ")}]`;
  return typeof value === "string" && setting === "description" ? JSON.stringify(value) : String(value);
}

function describeRunner(runner: NewRunner): string {
  const untagged = runner.run_untagged ? ", takes untagged jobs" : "";
  return `tags [${runner.tag_list?.join(", ") ?? ""}]${untagged}, access ${runner.access_level}, maximum timeout ${runner.maximum_timeout} s`;
}

/**
 * Tags the base's shards took that no shard of the head takes: a job that asks for one finds no runner
 * of this cell after onboard runs, and stays pending (GitLab gives a job only to a runner with all of
 * its tags, docs.gitlab.com/ci/yaml/#tags; lib/simulate/route-jobs.ts shardMatches).
 */
function strandedTags(before: RunnerModel | undefined, after: RunnerModel): string[] {
  if (!before) return [];
  const routable = after.shards.map((shard) => ({ name: shard.name, tags: shard.tags, runUntagged: shard.run_untagged }));
  const warnings: string[] = [];
  for (const shard of before.shards) {
    const lost = shard.tags.filter((tag) => !routable.some((entry) => shardMatches(entry, [tag])));
    if (lost.length > 0) {
      const tags = lost.map((tag) => `"${tag}"`).join(", ");
      warnings.push(`jobs tagged ${tags} (shard ${shard.name} took them) find no runner of cell ${after.cell.id} after this change: they stay pending until a runner with ${lost.length === 1 ? "that tag" : "those tags"} takes them`);
    }
    const untaggedLost = shard.run_untagged && !routable.some((entry) => entry.runUntagged);
    if (untaggedLost) warnings.push(`untagged jobs (shard ${shard.name} took them) find no runner of cell ${after.cell.id} after this change`);
  }
  return warnings;
}

/** One line per runner change, as the text review and the note print it. */
export function describeRunnerChange(change: ShardRunnerChange, cell: string): string {
  if (change.kind === "create") return `shard ${change.shard}: a new runner is registered (${change.runner})`;
  if (change.kind === "left-registered") {
    const cache = change.cache ? ", and its cache bucket with the cached objects in it (the cache is disposable)" : "";
    return (
      `shard ${change.shard} is gone from the model: the apply deletes its managers and workers${cache}; ` +
      `its runner (tags [${change.tags.join(", ")}]) stays registered in GitLab, with no manager once the apply removes them, until \`onboard --model ${cell} --prune\` deletes it`
    );
  }
  if (change.kind === "rename") {
    const settings = change.settings.map((setting) => `, ${setting.setting} ${setting.before} → ${setting.after}`).join("");
    return (
      `shard ${change.shard} is shard ${change.from} renamed (renamed_from): its resources move to the new name and keep their cloud names, none is replaced; ` +
      `onboard keeps its runner and token and renames the runner in place (marker shard=${change.from} → shard=${change.shard}${settings})`
    );
  }
  return `shard ${change.shard}: ${change.settings.map((setting) => `${setting.setting} ${setting.before} → ${setting.after}`).join(", ")}`;
}
