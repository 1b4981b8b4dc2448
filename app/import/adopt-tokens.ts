/**
 * `import --adopt`: which of a shard's config.toml tokens belongs to a runner GitLab still accepts,
 * and what GitLab holds for that runner (tags, description, run-untagged, locked, paused, maximum
 * timeout, access level, type), so the model asks for the runner as it is and onboard adopts it
 * without changing it.
 *
 * - Only runner authentication tokens (glrt-) are adopted, after POST /runners/verify
 *   (lib/gitlab/verify-token.ts, which also removes the manager entry the check records).
 * - A registration token (GR1348941...) is not a runner's token; a token without the glrt- prefix
 *   belongs to a runner registered the legacy way; a token GitLab refuses is dead: each is reported,
 *   and the shard gets a new runner at onboard.
 * - Where merged entries hold tokens of several runners, the first verified one is adopted; the
 *   others are reported, to be removed once the migration is done.
 *
 * Tokens stay in memory: the caller writes the adopted one to the secret store, nowhere else.
 */
import type { GitLabClient, RunnerDetails } from "../../lib/gitlab/client";
import { checkRunnerToken } from "../../lib/gitlab/verify-token";
import { isReservedTag } from "../../lib/model/cell-tag";
import type { ImportedShard } from "./imported-model";
import type { RunnerToken } from "./runner-shard";

/** The prefix of GitLab's runner registration tokens (deprecated registration flow). */
const REGISTRATION_TOKEN_PREFIX = "GR1348941";
const RUNNER_TOKEN_PREFIX = "glrt-";

export type ShardAdoption =
  | { readonly shard: string; readonly adopted: true; readonly runner: RunnerDetails; readonly token: string; readonly tokenExpiresAt: string | null; readonly notes: readonly string[] }
  | { readonly shard: string; readonly adopted: false; readonly notes: readonly string[] };

export async function adoptShardTokens(client: Pick<GitLabClient, "verifyRunnerToken" | "deleteRunnerManager" | "getRunner">, shard: ImportedShard): Promise<ShardAdoption> {
  const notes: string[] = [];
  let adopted: Extract<ShardAdoption, { adopted: true }> | undefined;
  if (shard.tokens.length === 0) notes.push(`shard ${shard.name}: no token in the config.toml; onboard creates a new runner`);
  for (const token of shard.tokens) {
    const refused = refusedKind(token);
    if (refused) {
      notes.push(`shard ${shard.name}: the token at ${token.where} ${refused}; ${adopted ? "not adopted" : "onboard creates a new runner"}`);
      continue;
    }
    const check = await checkRunnerToken(client, token.value, 0, `the imported token of shard ${shard.name} (${token.where})`);
    if (!check.valid) {
      notes.push(`shard ${shard.name}: GitLab refuses the token at ${token.where} (${check.reason}); ${adopted ? "not adopted" : "onboard creates a new runner"}`);
      continue;
    }
    if (adopted) {
      if (adopted.runner.id !== check.runnerId) notes.push(`shard ${shard.name}: the token at ${token.where} is runner #${check.runnerId}'s; the shard adopts runner #${adopted.runner.id}, so #${check.runnerId} is left alone: remove it once the migration is done`);
      continue;
    }
    const runner = await client.getRunner(check.runnerId, `read runner #${check.runnerId} of shard ${shard.name}`);
    if (!runner) {
      notes.push(`shard ${shard.name}: runner #${check.runnerId} of the token at ${token.where} could not be read; onboard creates a new runner`);
      continue;
    }
    if (runner.maximum_timeout === null) notes.push(`shard ${shard.name}: runner #${runner.id} has no maximum timeout; the model's default (1h) is set at onboard unless you set maximum_timeout`);
    adopted = { shard: shard.name, adopted: true, runner, token: token.value, tokenExpiresAt: check.tokenExpiresAt, notes };
  }
  return adopted ?? { shard: shard.name, adopted: false, notes };
}

function refusedKind(token: RunnerToken): string | undefined {
  if (token.value.startsWith(REGISTRATION_TOKEN_PREFIX)) return "is a registration token (GR1348941...), not a runner's token";
  if (!token.value.startsWith(RUNNER_TOKEN_PREFIX)) return "is a legacy runner token (registered with a registration token); only glrt- authentication tokens are adopted";
  return undefined;
}

const RUNNER_TYPES = { instance_type: "instance", group_type: "group", project_type: "project" } as const;

/** The shard's GitLab settings as the adopted runner has them, so onboard's adoption changes nothing but its marker. */
export function withRunnerSettings(shard: Record<string, unknown>, runner: RunnerDetails): Record<string, unknown> {
  const runnerType = RUNNER_TYPES[runner.runner_type as keyof typeof RUNNER_TYPES] ?? "instance";
  const owner =
    runnerType === "group" && runner.groups?.[0] ? { group_id: runner.groups[0].id } : runnerType === "project" && runner.projects?.[0] ? { project_id: runner.projects[0].id } : {};
  const { name, ...rest } = shard;
  return {
    name,
    ...(runner.description ? { description: runner.description } : {}),
    // A runner-fleet:<cell> tag is the fleet's own, added at onboard; a model may not name it.
    tags: (runner.tag_list ?? []).filter((tag) => !isReservedTag(tag)),
    run_untagged: runner.run_untagged,
    locked: runner.locked,
    ...(runner.access_level === "ref_protected" ? { access_level: "ref_protected" } : {}),
    ...(runner.maximum_timeout ? { maximum_timeout: goDuration(runner.maximum_timeout) } : {}),
    ...(runner.paused ? { paused: true } : {}),
    ...(runnerType === "instance" ? {} : { runner_type: runnerType, ...owner }),
    ...withoutSettings(rest),
  };
}

function withoutSettings(shard: Record<string, unknown>): Record<string, unknown> {
  const { description: _description, tags: _tags, run_untagged: _runUntagged, ...rest } = shard;
  return rest;
}

function goDuration(seconds: number): string {
  if (seconds % 3600 === 0) return `${seconds / 3600}h`;
  if (seconds % 60 === 0) return `${seconds / 60}m`;
  return `${seconds}s`;
}
