/**
 * onboard's flags, parsed once (app/cli/parse-options.ts) into one mode: what the run does, a
 * discriminated union the command switches on instead of testing flags. A flag the mode does not
 * take is refused (exit 2), before anything is touched. The flags come from the command line or
 * from callers (provision, the roll, tests) in the same shape. Loaded inside runOnboard (it imports zod).
 */
import { Command } from "commander";
import { z } from "zod";
import { DEFAULT_STALE_AFTER, parseStaleAfter } from "../../lib/gitlab/prune";
import type { ReconcileMode } from "../../lib/onboard/plan";
import { UserInputError } from "../../lib/process/errors";
import { isDuration, isRequestRate, lockWaitMs, LOCK_WAIT_ENV, RATE_LIMIT_ENV, requestsPerMinute, retryBudgetMs, RETRY_TIMEOUT_ENV, DEFAULT_CONCURRENCY } from "../cli/gitlab-settings";
import { listOf, modeFlags, parseOptions, selectMode } from "../cli/parse-options";

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
  /** With prune: also read every runner without the cell's tag (runners of shards removed before onboard tagged them). */
  readonly searchUntagged?: boolean;
  /** With status: exit 1 unless every shard has an online manager. */
  readonly requireOnline?: boolean;
  /** Limit to these shard names (--shard, repeatable). */
  readonly shards?: readonly string[];
  /** Shards handled at once (a number, or its text from the command line). @default 4 */
  readonly concurrency?: number | string;
  /** How long one GitLab call may keep retrying: a Go duration ("2m") or milliseconds. @default $ONBOARD_RETRY_TIMEOUT or 2m */
  readonly retryTimeout?: string | number;
  /** How long to wait for another run's lock on the cell: a Go duration or milliseconds. @default $ONBOARD_LOCK_WAIT or 2m */
  readonly lockWait?: string | number;
  /** Requests a minute to the GitLab (0: unpaced). @default $GITLAB_REQUESTS_PER_MINUTE or 100 */
  readonly rateLimit?: string | number;
}

/** What the run does. Changing modes wait `lockWaitMs` for the cell's lock (dry runs take none). */
export type OnboardMode =
  | { readonly kind: ReconcileMode; readonly dryRun: boolean; readonly shards: readonly string[]; readonly lockWaitMs: number }
  | { readonly kind: "status"; readonly dryRun: boolean; readonly shards: readonly string[]; readonly requireOnline: boolean }
  | { readonly kind: "prune"; readonly dryRun: boolean; readonly staleAfterMs: number; readonly searchUntagged: boolean; readonly lockWaitMs: number };

export interface OnboardRequest {
  readonly mode: OnboardMode;
  readonly concurrency: number;
  readonly retryBudgetMs: number;
  readonly requestsPerMinute: number;
}

const MODE_FLAGS = ["rotate", "remove", "status", "prune"] as const;
/** The flags OnboardFlags names, by the key their command-line flag has (--shard: `shard`). */
const FLAG_KEYS = ["dryRun", ...MODE_FLAGS, "staleAfter", "searchUntagged", "requireOnline", "concurrency", "retryTimeout", "lockWait", "rateLimit"] as const;

const duration = z.union([z.string(), z.number()]).refine(isDuration, { error: 'must be a Go duration such as "2m" or "90s"' });
const shared = {
  dryRun: z.literal(true).optional(),
  concurrency: z
    .union([z.number(), z.string()])
    .transform(Number)
    .refine((value) => Number.isInteger(value) && value >= 1 && value <= 64, { error: "must be a whole number from 1 to 64" })
    .optional(),
  retryTimeout: duration.optional(),
  rateLimit: z.union([z.string(), z.number()]).refine(isRequestRate, { error: "must be a number of requests a minute (0: no limit)" }).optional(),
};
const shards = { shard: z.array(z.string()).optional() };
const lock = { lockWait: duration.optional() };
const staleAfter = z.string().transform((value, context) => {
  try {
    return parseStaleAfter(value);
  } catch (error) {
    if (!(error instanceof UserInputError)) throw error;
    context.addIssue({ code: "custom", path: [], message: error.message });
    return z.NEVER;
  }
});

/** Why flags do not go with `mode`. */
function refuse(mode: OnboardMode["kind"]): (flags: readonly string[]) => string {
  const owner: Record<string, string> = { "--require-online": "--status", "--stale-after": "--prune", "--search-untagged": "--prune", "--lock-wait": "runs that change GitLab (not --status)" };
  return (flags) => {
    const modes = flags.filter((flag) => (MODE_FLAGS as readonly string[]).includes(flag.slice(2)));
    const others = flags.filter((flag) => !modes.includes(flag));
    return [
      ...(modes.length > 0 ? [`choose one of --rotate, --remove, --status and --prune: --${mode} cannot be combined with ${listOf(modes, "or")}`] : []),
      ...others.map((flag) => (mode === "prune" && flag === "--shard" ? "--prune works on the whole cell: leave out --shard" : `${flag} goes with ${owner[flag]}`)),
    ].join("; ");
  };
}

const optionsSchema = selectMode((flags) => MODE_FLAGS.find((flag) => flags[flag]) ?? "reconcile", [
  modeFlags("reconcile", { ...shared, ...shards, ...lock }, refuse("reconcile")),
  modeFlags("rotate", { ...shared, ...shards, ...lock, rotate: z.literal(true) }, refuse("rotate")),
  modeFlags("remove", { ...shared, ...shards, ...lock, remove: z.literal(true) }, refuse("remove")),
  modeFlags("status", { ...shared, ...shards, status: z.literal(true), requireOnline: z.literal(true).optional() }, refuse("status")),
  modeFlags("prune", { ...shared, ...lock, prune: z.literal(true), staleAfter: staleAfter.optional(), searchUntagged: z.literal(true).optional() }, refuse("prune")),
]);

/** Names flags in messages: parse-options spells a key as its flag ("lockWait" -> --lock-wait). */
const FLAG_NAMES = new Command("onboard");

/** Parses the flags (and the variables they fall back to) into one request; a UserInputError (exit 2) names the flag. */
export function parseOnboardOptions(flags: OnboardFlags, env: NodeJS.ProcessEnv): OnboardRequest {
  const parsed = parseOptions(FLAG_NAMES, optionsSchema, given(flags));
  const common = { dryRun: Boolean(parsed.dryRun) };
  const shardNames = "shard" in parsed ? (parsed.shard ?? []) : [];
  const changing = () => lockWaitMs(("lockWait" in parsed ? parsed.lockWait : undefined) ?? env[LOCK_WAIT_ENV]);
  const mode: OnboardMode =
    parsed["selected-mode"] === "status"
      ? { kind: "status", ...common, shards: shardNames, requireOnline: "requireOnline" in parsed && parsed.requireOnline === true }
      : parsed["selected-mode"] === "prune"
        ? {
            kind: "prune",
            ...common,
            staleAfterMs: ("staleAfter" in parsed ? parsed.staleAfter : undefined) ?? parseStaleAfter(DEFAULT_STALE_AFTER),
            searchUntagged: "searchUntagged" in parsed && parsed.searchUntagged === true,
            lockWaitMs: changing(),
          }
        : { kind: parsed["selected-mode"], ...common, shards: shardNames, lockWaitMs: changing() };
  return {
    mode,
    concurrency: parsed.concurrency ?? DEFAULT_CONCURRENCY,
    retryBudgetMs: retryBudgetMs(parsed.retryTimeout ?? env[RETRY_TIMEOUT_ENV]),
    requestsPerMinute: requestsPerMinute(parsed.rateLimit ?? env[RATE_LIMIT_ENV]),
  };
}

/** The flags given: a switch that is off, an empty list or an unset value was not given. */
function given(flags: OnboardFlags): Record<string, unknown> {
  const values: Record<string, unknown> = { shard: flags.shards };
  for (const key of FLAG_KEYS) values[key] = flags[key];
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined && value !== false && !(Array.isArray(value) && value.length === 0)));
}


const cellConcurrency = z
  .union([z.number(), z.string()])
  .transform(Number)
  .refine((value) => Number.isInteger(value) && value >= 1 && value <= 64, { error: "must be a whole number from 1 to 64" });

/** --cell-concurrency: cells handled at once; a UserInputError (exit 2) names the flag and the value. */
export function parseCellConcurrency(value: number | string): number {
  const parsed = cellConcurrency.safeParse(value);
  if (!parsed.success) throw new UserInputError(`--cell-concurrency must be a whole number from 1 to 64, received ${JSON.stringify(value)}`);
  return parsed.data;
}
