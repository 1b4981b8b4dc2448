/**
 * Settings of the commands that talk to GitLab (onboard, status): how many shards at once,
 * how long one call may keep retrying, how long to wait for a cell's onboard lock, how many
 * requests a minute. Each is a flag that falls back to a variable. No zod here: status reads
 * these without loading it.
 */
import { UserInputError } from "../../lib/process/errors";
import { DEFAULT_REQUESTS_PER_MINUTE } from "../../lib/gitlab/request-pacer";
import { DEFAULT_RETRY_POLICY } from "../../lib/gitlab/retry";
import { parseGoDurationSeconds } from "../../lib/model/duration";
import { DEFAULT_LOCK_WAIT_MS } from "../../lib/state/cell-lock";

export const DEFAULT_CONCURRENCY = 4;
export const RETRY_TIMEOUT_ENV = "ONBOARD_RETRY_TIMEOUT";
export const LOCK_WAIT_ENV = "ONBOARD_LOCK_WAIT";
export const RATE_LIMIT_ENV = "GITLAB_REQUESTS_PER_MINUTE";
/** Cells checked or onboarded at once (each with its own shard concurrency). */
export const DEFAULT_CELL_CONCURRENCY = 4;

/** --rate-limit / $GITLAB_REQUESTS_PER_MINUTE: requests a minute to one GitLab per token; 0 for no pacing (429s are still honoured). */
export function requestsPerMinute(value: string | number | undefined): number {
  if (value === undefined || value === "") return DEFAULT_REQUESTS_PER_MINUTE;
  const number = typeof value === "number" ? value : /^\s*\d+(\.\d+)?\s*$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isFinite(number) || number < 0) {
    throw new UserInputError(`--rate-limit (or $${RATE_LIMIT_ENV}) must be a number of requests a minute (0: no limit), received ${JSON.stringify(value)}`);
  }
  return number;
}

/** Whether a flag's value reads as a request rate. */
export function isRequestRate(value: string | number): boolean {
  try {
    requestsPerMinute(value);
    return true;
  } catch {
    return false;
  }
}

/** --retry-timeout / $ONBOARD_RETRY_TIMEOUT: a Go duration ("90s", "2m") or a number of milliseconds. */
export function retryBudgetMs(value: string | number | undefined): number {
  return durationMs(value, DEFAULT_RETRY_POLICY.budgetMs, "--retry-timeout", RETRY_TIMEOUT_ENV);
}

/** --lock-wait / $ONBOARD_LOCK_WAIT, the same way. */
export function lockWaitMs(value: string | number | undefined): number {
  return durationMs(value, DEFAULT_LOCK_WAIT_MS, "--lock-wait", LOCK_WAIT_ENV);
}

/** Whether a flag's value reads as a duration: a Go duration ("2m") or milliseconds. */
export function isDuration(value: string | number): boolean {
  return typeof value === "number" ? Number.isFinite(value) && value >= 0 : parseGoDurationSeconds(value.trim()) !== undefined;
}

/** A flag or variable holding a Go duration ("90s", "2m") or a number of milliseconds. */
function durationMs(value: string | number | undefined, fallback: number, flag: string, variable: string): number {
  if (value === undefined || value === "") return fallback;
  if (typeof value === "number" && Number.isFinite(value) && value >= 0) return value;
  const seconds = typeof value === "string" ? parseGoDurationSeconds(value.trim()) : undefined;
  if (seconds === undefined) throw new UserInputError(`${flag} (or $${variable}) must be a Go duration such as "2m" or "90s", received ${JSON.stringify(value)}`);
  return seconds * 1000;
}
