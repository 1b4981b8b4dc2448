/**
 * Onboarding refuses runner authentication tokens that expire.
 *
 * WHY REFUSE rather than let a manager renew the token and write it back to the store:
 * - All managers of a shard share the shard's one runner token (one runner, one manager per
 *   system_id). A renewal resets that token (POST /runners/reset_authentication_token), and GitLab
 *   replaces the runner's single token in place (Ci::Runners::ResetAuthenticationTokenService ->
 *   runner.reset_token!): the old token is refused at once, with no grace period. One manager's
 *   renewal therefore cuts off every other manager of the shard until they re-read the store.
 * - The managers share one token_expires_at, so they all decide to renew at the same moment; the
 *   losers present a token that was just reset, and the store sees competing writes.
 * - The renewal would need write access to the secret on every manager. Today a renewed token lives
 *   only in that VM's config.toml, and its next boot restores the stale one from the store.
 * The same safety comes from `onboard --rotate` on a schedule: one writer (onboard) resets the token
 * and stores it, and every manager picks it up within a minute (the token refresh timer).
 */
import type { Shard } from "../model/schema";
import type { IssuedToken } from "./client";

/** Where GitLab decides that runner tokens expire. */
const EXPIRATION_SETTINGS =
  'the runner token expiration interval of the runner\'s scope (Admin area > Settings > CI/CD > Continuous Integration and Deployment: "Runner expiration" for instance runners; the group\'s or project\'s runner token expiration interval for the others)';

/** The problem with an issued token, or undefined when it does not expire. */
export function expiringTokenProblem(shard: Shard, issued: IssuedToken): string | undefined {
  if (!issued.token_expires_at) return undefined;
  return (
    `shard ${shard.name}: GitLab issued runner #${issued.id} a token that expires at ${issued.token_expires_at}. ` +
    "The shard's managers share that one token, and renewing it resets it for all of them at once, so runner-fleet does not use expiring tokens. " +
    `Turn off ${EXPIRATION_SETTINGS}, then run onboard again; rotate on a schedule with onboard --rotate instead (managers pick up a rotated token within a minute).`
  );
}
