/** What the executor's steps share: the client, the store, and the two token chores every step that issues a token does. */
import type { GitLabClient, IssuedToken } from "../gitlab/client";
import type { RetryClock, RetryPolicy } from "../gitlab/retry";
import type { RunnerCensus } from "../gitlab/runner-census";
import type { RunnerModel, Shard } from "../model/schema";
import type { SecretStore } from "../secrets/store";

export interface ExecuteContext {
  readonly model: RunnerModel;
  readonly client: GitLabClient;
  /** The run's view of the cell's runners (lookups read each listing and runner once). */
  readonly census: RunnerCensus;
  readonly store: SecretStore;
  readonly policy: RetryPolicy;
  readonly clock: RetryClock;
  readonly log: (line: string) => void;
  /** Told about every runner token issued, so messages can scrub it. */
  readonly rememberSecret: (token: string) => void;
}

export async function resetToken(ctx: ExecuteContext, shard: Shard, runnerId: number): Promise<IssuedToken> {
  const issued = await ctx.client.resetRunnerToken(runnerId, `reset the token of runner #${runnerId} of shard ${shard.name}`);
  ctx.rememberSecret(issued.token);
  return issued;
}

/** Stores a token GitLab issued, by creating the runner or by resetting its token (a rotation, dated). */
export async function storeToken(ctx: ExecuteContext, shard: Shard, issued: IssuedToken, issuedBy: "create" | "reset"): Promise<void> {
  const now = new Date(ctx.clock.now()).toISOString();
  await ctx.store.write(shard, {
    token: issued.token,
    runnerId: issued.id,
    gitlabUrl: ctx.model.gitlab.url,
    tokenExpiresAt: issued.token_expires_at,
    createdAt: now,
    ...(issuedBy === "reset" ? { rotatedAt: now } : {}),
  });
}
