/**
 * Fetches what GitLab and the secret store hold for a shard (./observed.ts), before the
 * plan is made. Read-only but for one thing: verifying the stored token registers a
 * contact in GitLab, which lib/gitlab/verify-token.ts removes again; it is only asked
 * when the plan could keep the token (reconcile, not a dry run, the stored id's runner,
 * of the right type).
 *
 * Identity: the secret store keeps the runner id with the token; a runner is found by
 * that id, else by the marker in its maintenance note (lib/gitlab/locate-runner.ts).
 * A token stored for another GitLab is not used to look anything up.
 */
import type { GitLabClient, NewRunner } from "../gitlab/client";
import { locateRunner } from "../gitlab/locate-runner";
import { formerMarkerOf } from "../gitlab/runner-spec";
import type { RunnerCensus } from "../gitlab/runner-census";
import { checkRunnerToken } from "../gitlab/verify-token";
import type { RunnerModel, Shard } from "../model/schema";
import type { SecretStore, StoredRunnerToken } from "../secrets/store";
import type { ObservedSecret, ObservedShard, ObservedToken } from "./observed";

export interface ObserveContext {
  readonly model: RunnerModel;
  readonly client: GitLabClient;
  /** The run's view of the cell's runners, shared by every shard's lookup. */
  readonly census: RunnerCensus;
  readonly store: SecretStore;
  /** False in dry runs against cloud stores: no credentials are touched. */
  readonly readSecrets: boolean;
  /** Told about every runner token read, so messages can scrub it. */
  readonly rememberSecret: (token: string) => void;
}

export async function observeShard(ctx: ObserveContext, shard: Shard, desired: NewRunner, options: { readonly verifyToken: boolean }): Promise<ObservedShard> {
  const read = ctx.readSecrets ? await ctx.store.read(shard) : undefined;
  if (read) ctx.rememberSecret(read.token);
  const secret = classifySecret(ctx, read);
  const stored = secret.kind === "stored" ? read : undefined;
  const located = await locateRunner(ctx, shard, desired, stored);
  const runner = located.runner;
  let token: ObservedToken = { kind: "unverified" };
  if (options.verifyToken && stored && runner && runner.id === stored.runnerId && runner.runner_type === desired.runner_type) {
    const check = await checkRunnerToken(ctx.client, stored.token, runner.id, `runner #${runner.id} of shard ${shard.name}`);
    if (!check.valid) token = { kind: "refused", reason: check.reason };
    else token = check.matchesRunner ? { kind: "works" } : { kind: "refused", reason: `it belongs to runner #${check.runnerId}` };
  }
  return {
    secret,
    ...(runner ? { runner } : {}),
    foundBy: located.foundBy,
    duplicates: located.duplicates,
    ...(located.staleStoredId === undefined ? {} : { staleStoredId: located.staleStoredId }),
    token,
    ...(runner && formerMarkerOf(runner, ctx.model, shard) !== undefined ? { renamedFrom: shard.renamed_from } : {}),
  };
}

function classifySecret(ctx: ObserveContext, stored: StoredRunnerToken | undefined): ObservedSecret {
  if (!ctx.readSecrets) return { kind: "unread" };
  if (!stored) return { kind: "absent" };
  if (stored.gitlabUrl && !sameUrl(stored.gitlabUrl, ctx.model.gitlab.url)) return { kind: "foreign", gitlabUrl: stored.gitlabUrl };
  return { kind: "stored", runnerId: stored.runnerId };
}

function sameUrl(a: string, b: string): boolean {
  const normalize = (url: string) => url.replace(/\/+$/, "").toLowerCase();
  return normalize(a) === normalize(b);
}
