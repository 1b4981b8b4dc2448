/**
 * onboard's options, parsed once (zod) into one mode: a discriminated union that says what
 * the run does, so the rest of the command switches on `mode.kind` instead of testing
 * flags. Every mistake is a UserInputError (exit 2) before anything is touched.
 * Flags come from commander (strings) or from callers (provision, the roll, tests).
 */
import { z } from "zod";
import { UserInputError } from "../../lib/errors";
import { DEFAULT_RETRY_POLICY } from "../../lib/gitlab/retry";
import { DEFAULT_STALE_AFTER, parseStaleAfter } from "../../lib/gitlab/prune";
import { parseGoDurationSeconds } from "../../lib/model/duration";
import type { ReconcileMode } from "../../lib/onboard/plan";
import { DEFAULT_LOCK_WAIT_MS } from "../../lib/state/cell-lock";

export const DEFAULT_CONCURRENCY = 4;
export const RETRY_TIMEOUT_ENV = "ONBOARD_RETRY_TIMEOUT";
export const LOCK_WAIT_ENV = "ONBOARD_LOCK_WAIT";

/** The flags as given; each is optional. */
export interface OnboardFlags {
  readonly dryRun?: boolean;
  readonly rotate?: boolean;
  readonly remove?: boolean;
  readonly status?: boolean;
  /** Delete runners of removed shards and stale managers (with dryRun: list them). */
  readonly prune?: boolean;
  /** With prune: managers not seen for this long are stale ("7d", "36h"). @default 1d */
  readonly staleAfter?: string;
  /** With status: exit 1 unless every shard has an online manager. */
  readonly requireOnline?: boolean;
  /** Limit to these shard names. */
  readonly shards?: readonly string[];
  /** Shards handled at once (a number, or its text from the command line). @default 4 */
  readonly concurrency?: number | string;
  /** How long one GitLab call may keep retrying: a Go duration ("2m") or milliseconds. @default $ONBOARD_RETRY_TIMEOUT or 2m */
  readonly retryTimeout?: string | number;
  /** How long to wait for another run's lock on the cell: a Go duration or milliseconds. @default $ONBOARD_LOCK_WAIT or 2m */
  readonly lockWait?: string | number;
}

/** What the run does. Changing modes wait `lockWaitMs` for the cell's lock (dry runs take none). */
export type OnboardMode =
  | { readonly kind: ReconcileMode; readonly dryRun: boolean; readonly shards: readonly string[]; readonly lockWaitMs: number }
  | { readonly kind: "status"; readonly dryRun: boolean; readonly shards: readonly string[]; readonly requireOnline: boolean }
  | { readonly kind: "prune"; readonly dryRun: boolean; readonly staleAfterMs: number; readonly lockWaitMs: number };

export interface OnboardRequest {
  readonly mode: OnboardMode;
  readonly concurrency: number;
  readonly retryBudgetMs: number;
}

const duration = z.union([z.string(), z.number()]).optional();

const flagsSchema = z.object({
  dryRun: z.boolean().default(false),
  rotate: z.boolean().default(false),
  remove: z.boolean().default(false),
  status: z.boolean().default(false),
  prune: z.boolean().default(false),
  staleAfter: z.string().optional(),
  requireOnline: z.boolean().default(false),
  shards: z.array(z.string()).default([]),
  concurrency: z
    .union([z.number(), z.string()])
    .default(DEFAULT_CONCURRENCY)
    .transform(Number)
    .refine((value) => Number.isInteger(value) && value >= 1 && value <= 64, {
      error: (issue) => `--concurrency must be a whole number from 1 to 64, received ${String(issue.input)}`,
    }),
  retryTimeout: duration,
  lockWait: duration,
});

type Flags = z.output<typeof flagsSchema>;

/** Parses the flags (and the variables they fall back to) into one request; throws UserInputError naming the flag. */
export function parseOnboardOptions(flags: OnboardFlags, env: NodeJS.ProcessEnv): OnboardRequest {
  const parsed = flagsSchema.safeParse(flags);
  if (!parsed.success) throw new UserInputError(parsed.error.issues.map((issue) => issue.message).join("; "));
  const given = parsed.data;
  return {
    mode: chooseMode(given, env),
    concurrency: given.concurrency,
    retryBudgetMs: retryBudgetMs(given.retryTimeout ?? env[RETRY_TIMEOUT_ENV]),
  };
}

function chooseMode(flags: Flags, env: NodeJS.ProcessEnv): OnboardMode {
  const chosen = (["rotate", "remove", "status", "prune"] as const).filter((flag) => flags[flag]);
  if (chosen.length > 1) throw new UserInputError(`choose one of --rotate, --remove, --status and --prune, received ${chosen.map((flag) => `--${flag}`).join(" and ")}`);
  const kind = chosen[0] ?? "reconcile";
  if (flags.requireOnline && kind !== "status") throw new UserInputError("--require-online goes with --status");
  if (flags.staleAfter !== undefined && kind !== "prune") throw new UserInputError("--stale-after goes with --prune");
  const { dryRun, shards } = flags;
  switch (kind) {
    case "status":
      return { kind, dryRun, shards, requireOnline: flags.requireOnline };
    case "prune":
      if (shards.length > 0) throw new UserInputError("--prune works on the whole cell: leave out --shard");
      return { kind, dryRun, staleAfterMs: parseStaleAfter(flags.staleAfter ?? DEFAULT_STALE_AFTER), lockWaitMs: lockWaitMs(flags, env) };
    default:
      return { kind, dryRun, shards, lockWaitMs: lockWaitMs(flags, env) };
  }
}

function lockWaitMs(flags: Flags, env: NodeJS.ProcessEnv): number {
  return durationMs(flags.lockWait ?? env[LOCK_WAIT_ENV], DEFAULT_LOCK_WAIT_MS, "--lock-wait", LOCK_WAIT_ENV);
}

/** --retry-timeout / $ONBOARD_RETRY_TIMEOUT: a Go duration ("90s", "2m") or a number of milliseconds. */
export function retryBudgetMs(value: string | number | undefined): number {
  return durationMs(value, DEFAULT_RETRY_POLICY.budgetMs, "--retry-timeout", RETRY_TIMEOUT_ENV);
}

/** A flag or variable holding a Go duration ("90s", "2m") or a number of milliseconds. */
function durationMs(value: string | number | undefined, fallback: number, flag: string, variable: string): number {
  if (value === undefined || value === "") return fallback;
  if (typeof value === "number" && Number.isFinite(value) && value >= 0) return value;
  const seconds = typeof value === "string" ? parseGoDurationSeconds(value.trim()) : undefined;
  if (seconds === undefined) throw new UserInputError(`${flag} (or $${variable}) must be a Go duration such as "2m" or "90s", received ${JSON.stringify(value)}`);
  return seconds * 1000;
}
