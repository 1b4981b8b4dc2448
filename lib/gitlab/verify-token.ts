/**
 * Does a stored runner token still work, and for which runner? Asked with
 * POST /runners/verify, the one call GitLab offers for it.
 *
 * That call is not read-only: GitLab's handler runs `authenticate_runner!`
 * (lib/api/ci/runner.rb, lib/api/ci/helpers/runner.rb), which refreshes the
 * runner's contact time and creates the manager named by `system_id` (or
 * "<legacy>" when none is given), marked as just contacted. Left alone, every
 * check would add a phantom "online" manager to the runner. So the check names
 * itself with a system id of its own and deletes that manager right after
 * (DELETE /runners/managers, with the same token). Callers that report managers
 * list them before checking the token: the runner's own contact time is refreshed
 * by the check, so it is no evidence of a living manager afterwards.
 */
import type { GitLabClient, TokenVerification } from "./client";

/** The system id the check registers under; never one of a real manager (those are s_<hex> or r_<hex>). */
export const TOKEN_CHECK_SYSTEM_ID = "runner-fleet-token-check";

export type TokenCheck =
  | { readonly valid: true; readonly runnerId: number; readonly tokenExpiresAt: string | null; readonly matchesRunner: boolean }
  | { readonly valid: false; readonly reason: string };

/**
 * Verifies `token` and removes the trace the verification leaves. `expectedRunnerId`:
 * the runner the token is stored for; a token of another runner is reported as not matching.
 */
export async function checkRunnerToken(client: Pick<GitLabClient, "verifyRunnerToken" | "deleteRunnerManager">, token: string, expectedRunnerId: number, what: string): Promise<TokenCheck> {
  const verified: TokenVerification = await client.verifyRunnerToken(token, TOKEN_CHECK_SYSTEM_ID, `verify the stored token of ${what}`);
  if (!verified.valid) return verified;
  await client.deleteRunnerManager(token, TOKEN_CHECK_SYSTEM_ID, `remove the manager entry the token check of ${what} created`);
  return { valid: true, runnerId: verified.runnerId, tokenExpiresAt: verified.tokenExpiresAt, matchesRunner: verified.runnerId === expectedRunnerId };
}
