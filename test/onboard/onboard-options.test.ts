/** onboard's flags, parsed once into one mode; every mistake is a usage error (exit 2) before anything runs. */
import { parseOnboardOptions, type OnboardFlags } from "../../app/commands/onboard-options";

const parse = (flags: OnboardFlags, env: NodeJS.ProcessEnv = {}) => parseOnboardOptions(flags, env);

test.each<[string, OnboardFlags, object]>([
  ["no flag: reconcile every shard", {}, { kind: "reconcile", dryRun: false, shards: [], lockWaitMs: 120_000 }],
  ["--dry-run --shard a", { dryRun: true, shards: ["a"] }, { kind: "reconcile", dryRun: true, shards: ["a"] }],
  ["--rotate --lock-wait 5m", { rotate: true, lockWait: "5m" }, { kind: "rotate", lockWaitMs: 300_000 }],
  ["--remove", { remove: true }, { kind: "remove" }],
  ["--status --require-online", { status: true, requireOnline: true }, { kind: "status", requireOnline: true, shards: [] }],
  ["--prune --stale-after 36h", { prune: true, staleAfter: "36h" }, { kind: "prune", staleAfterMs: 36 * 3600_000 }],
  ["--prune (1d by default)", { prune: true }, { kind: "prune", staleAfterMs: 86_400_000, searchUntagged: false }],
  ["--prune --search-untagged", { prune: true, searchUntagged: true }, { kind: "prune", searchUntagged: true }],
])("%s", (_name, flags, mode) => {
  expect(parse(flags).mode).toMatchObject(mode);
});

test("the status mode has no lock to wait for, the prune mode no shards", () => {
  expect(parse({ status: true }).mode).not.toHaveProperty("lockWaitMs");
  expect(parse({ prune: true }).mode).not.toHaveProperty("shards");
});

test("numbers and durations come from flags, as text or numbers, else from the variables", () => {
  expect(parse({ concurrency: "8", retryTimeout: "90s" })).toMatchObject({ concurrency: 8, retryBudgetMs: 90_000 });
  expect(parse({ concurrency: 2, retryTimeout: 1500 })).toMatchObject({ concurrency: 2, retryBudgetMs: 1500 });
  expect(parse({}, { ONBOARD_RETRY_TIMEOUT: "10s", ONBOARD_LOCK_WAIT: "1m" })).toMatchObject({ concurrency: 4, retryBudgetMs: 10_000, mode: { lockWaitMs: 60_000 } });
});

test.each<[string, OnboardFlags, string]>([
  ["two modes", { rotate: true, remove: true }, "choose one of --rotate, --remove, --status and --prune: --rotate cannot be combined with --remove"],
  ["three modes", { status: true, prune: true, remove: true }, "--remove cannot be combined with --status or --prune"],
  ["--require-online without --status", { requireOnline: true }, "--require-online goes with --status"],
  ["--stale-after without --prune", { staleAfter: "7d" }, "--stale-after goes with --prune"],
  ["--search-untagged without --prune", { status: true, searchUntagged: true }, "--search-untagged goes with --prune"],
  ["--lock-wait with --status, which takes no lock", { status: true, lockWait: "1m" }, "--lock-wait goes with runs that change GitLab (not --status)"],
  ["--prune with --shard", { prune: true, shards: ["a"] }, "--prune works on the whole cell: leave out --shard"],
  ["--stale-after below GitLab's online window", { prune: true, staleAfter: "1h" }, "at least 2h"],
  ["--concurrency 0", { concurrency: "0" }, '--concurrency must be a whole number from 1 to 64, got "0"'],
  ["--concurrency two", { concurrency: "two" }, '--concurrency must be a whole number from 1 to 64, got "two"'],
  ["--concurrency 65", { concurrency: 65 }, "got 65"],
  ["--retry-timeout soon", { retryTimeout: "soon" }, '--retry-timeout must be a Go duration such as "2m" or "90s", got "soon"'],
  ["--lock-wait -", { lockWait: "-" }, '--lock-wait must be a Go duration such as "2m" or "90s", got "-"'],
])("refuses %s (exit 2)", (_name, flags, message) => {
  expect(() => parse(flags)).toThrow(expect.objectContaining({ exitCode: 2, message: expect.stringContaining(message) }));
});

test("switches that are off and empty lists count as not given", () => {
  expect(parse({ rotate: false, remove: false, status: false, prune: false, dryRun: false, shards: [], requireOnline: false }).mode).toEqual({
    kind: "reconcile",
    dryRun: false,
    shards: [],
    lockWaitMs: 120_000,
  });
});

test("a bad variable is named with its flag", () => {
  expect(() => parse({}, { ONBOARD_RETRY_TIMEOUT: "soon" })).toThrow(expect.objectContaining({ exitCode: 2, message: expect.stringContaining("--retry-timeout (or $ONBOARD_RETRY_TIMEOUT)") }));
});

test("a bad $ONBOARD_LOCK_WAIT does not stop --status, which takes no lock", () => {
  expect(parse({ status: true }, { ONBOARD_LOCK_WAIT: "later" }).mode.kind).toBe("status");
  expect(() => parse({}, { ONBOARD_LOCK_WAIT: "later" })).toThrow(/--lock-wait/);
});

test("the request rate comes from --rate-limit, else $GITLAB_REQUESTS_PER_MINUTE, else 100 a minute (under GitLab's 7200 an hour)", () => {
  expect(parse({}).requestsPerMinute).toBe(100);
  expect(parse({ rateLimit: "1800" }).requestsPerMinute).toBe(1800);
  expect(parse({ rateLimit: 0 }).requestsPerMinute).toBe(0);
  expect(parse({}, { GITLAB_REQUESTS_PER_MINUTE: "600" }).requestsPerMinute).toBe(600);
});

test.each<[string, OnboardFlags, NodeJS.ProcessEnv, string]>([
  ["--rate-limit fast", { rateLimit: "fast" }, {}, '--rate-limit must be a number of requests a minute (0: no limit), got "fast"'],
  ["--rate-limit -5", { rateLimit: "-5" }, {}, "--rate-limit must be a number of requests a minute"],
  ["$GITLAB_REQUESTS_PER_MINUTE lots", {}, { GITLAB_REQUESTS_PER_MINUTE: "lots" }, '--rate-limit (or $GITLAB_REQUESTS_PER_MINUTE) must be a number of requests a minute (0: no limit), received "lots"'],
])("refuses %s (exit 2)", (_name, flags, env, message) => {
  expect(() => parse(flags, env)).toThrow(expect.objectContaining({ exitCode: 2, message: expect.stringContaining(message) }));
});
