/**
 * The onboarding plan, table-driven: what the model asks for × what GitLab and the store
 * hold -> the steps. Pure: no GitLab, no store (the executor and the fetch are covered
 * against the fake GitLab in reconcile.test.ts and several-operators.test.ts).
 */
import type { RunnerDetails } from "../../lib/gitlab/client";
import { desiredRunner, runnerSettings } from "../../lib/gitlab/runner-spec";
import type { ObservedShard } from "../../lib/onboard/observed";
import { formatSteps } from "../../lib/onboard/format-plan";
import { planShard, type OnboardStep, type PlanSettings, type ReconcileMode } from "../../lib/onboard/plan";
import { modelWith } from "../support/models";

const model = modelWith("cell-1", () => {});
const shard = model.shards[0];
const desired = { shard: shard.name, runner: desiredRunner(model, shard), secret: "local file /secrets/cell-1--small.json" };

/** The shard's runner as GitLab would hold it when it matches the model. */
function runner(id: number, change: Partial<RunnerDetails> = {}): RunnerDetails {
  return { id, runner_type: desired.runner.runner_type, online: false, status: "never_contacted", ...runnerSettings(desired.runner), tag_list: [...desired.runner.tag_list], ...change };
}

const nothing: ObservedShard = { secret: { kind: "absent" }, foundBy: "none", duplicates: [], token: { kind: "unverified" } };
/** Runner #7 found by the id stored with its token, which GitLab accepts. */
const healthy: ObservedShard = { secret: { kind: "stored", runnerId: 7 }, runner: runner(7), foundBy: "stored-id", duplicates: [], token: { kind: "works" } };

/** Steps in a compact form: "kind #id fields". */
function compact(step: OnboardStep): string {
  switch (step.kind) {
    case "create-runner":
      return `create-runner ${step.runner.description}`;
    case "update-runner":
      return `update-runner #${step.runnerId} ${Object.keys(step.changes).sort().join(",")}`;
    case "reset-token":
      return `reset-token #${step.runnerId} (${step.because})`;
    case "delete-runner":
    case "delete-duplicate":
      return `${step.kind} #${step.runnerId}`;
    case "delete-secret":
      return step.kind;
  }
}

interface Row {
  readonly mode: ReconcileMode;
  readonly dryRun?: boolean;
  readonly observed: ObservedShard;
  readonly action: string;
  readonly steps: readonly string[];
  /** A note (or the reason) must say this. */
  readonly says?: string;
}

const drifted = { ...healthy, runner: runner(7, { paused: !desired.runner.paused, tag_list: ["hand-edited"] }) };

const table: Record<string, Row> = {
  "nothing in GitLab or the store: create": { mode: "reconcile", observed: nothing, action: "create", steps: [`create-runner ${desired.runner.description}`], says: "no runner carries the shard's marker" },
  "matching runner with a working token: nothing to do": { mode: "reconcile", observed: healthy, action: "none", steps: [], says: "matches the model" },
  "drifted settings: one update of the drifted fields": { mode: "reconcile", observed: drifted, action: "update", steps: ["update-runner #7 paused,tag_list"] },
  "token GitLab refuses: reset and store, never a second runner": {
    mode: "reconcile",
    observed: { ...healthy, token: { kind: "refused", reason: "GitLab refused the token (403)" } },
    action: "adopt",
    steps: ["reset-token #7 (adopt)"],
    says: "no longer works (GitLab refused the token (403))",
  },
  "refused token and drift: reset, then update": {
    mode: "reconcile",
    observed: { ...drifted, token: { kind: "refused", reason: "it belongs to runner #8" } },
    action: "adopt",
    steps: ["reset-token #7 (adopt)", "update-runner #7 paused,tag_list"],
  },
  "runner found by its marker, no token stored: adopt": {
    mode: "reconcile",
    observed: { ...nothing, runner: runner(7), foundBy: "marker" },
    action: "adopt",
    steps: ["reset-token #7 (adopt)"],
    says: "has no stored token",
  },
  "stored runner deleted by hand, another found by marker: adopt it": {
    mode: "reconcile",
    observed: { secret: { kind: "stored", runnerId: 5 }, runner: runner(7), foundBy: "marker", duplicates: [], staleStoredId: 5, token: { kind: "unverified" } },
    action: "adopt",
    steps: ["reset-token #7 (adopt)"],
    says: "runner #5 of the stored token no longer exists",
  },
  "stored runner deleted by hand, none left: create": {
    mode: "reconcile",
    observed: { ...nothing, secret: { kind: "stored", runnerId: 5 }, staleStoredId: 5 },
    action: "create",
    steps: [`create-runner ${desired.runner.description}`],
    says: "the stored runner was deleted from GitLab",
  },
  "token stored for another GitLab: replaced": {
    mode: "reconcile",
    observed: { ...nothing, secret: { kind: "foreign", gitlabUrl: "https://old.example.com" }, runner: runner(7), foundBy: "marker" },
    action: "adopt",
    steps: ["reset-token #7 (adopt)"],
    says: "belongs to https://old.example.com",
  },
  "dry run: the stored token is not verified, and says so": {
    mode: "reconcile",
    dryRun: true,
    observed: { ...healthy, token: { kind: "unverified" } },
    action: "none",
    steps: [],
    says: "the stored token was not verified",
  },
  "dry run without cloud credentials: the store is not read": {
    mode: "reconcile",
    dryRun: true,
    observed: { ...drifted, secret: { kind: "unread" }, token: { kind: "unverified" } },
    action: "update",
    steps: ["update-runner #7 paused,tag_list"],
    says: "the secret store was not read",
  },
  "duplicates carrying the marker: deleted, the shard's runner kept": {
    mode: "reconcile",
    observed: { ...healthy, duplicates: [runner(9), runner(11)] },
    action: "none",
    steps: ["delete-duplicate #9", "delete-duplicate #11"],
    says: "runner #7 is kept",
  },
  "runner of another type: blocked, nothing touched": {
    mode: "reconcile",
    observed: { ...healthy, runner: runner(7, { runner_type: "group_type" }) },
    action: "blocked",
    steps: [],
    says: "is group_type, the model asks for instance_type",
  },
  "rotate: reset the token, fix drift, delete duplicates": {
    mode: "rotate",
    observed: { ...drifted, duplicates: [runner(9)] },
    action: "rotate",
    steps: ["reset-token #7 (rotate)", "update-runner #7 paused,tag_list", "delete-duplicate #9"],
  },
  "rotate without a runner: create": { mode: "rotate", observed: nothing, action: "create", steps: [`create-runner ${desired.runner.description}`] },
  "remove: the runner, then its secret, then duplicates": {
    mode: "remove",
    observed: { ...healthy, duplicates: [runner(9)] },
    action: "delete",
    steps: ["delete-runner #7", "delete-secret", "delete-duplicate #9"],
    says: "found by the stored runner id",
  },
  "remove with only a secret left": { mode: "remove", observed: { ...nothing, secret: { kind: "stored", runnerId: 7 } }, action: "delete", steps: ["delete-secret"], says: "only the secret is deleted" },
  "remove, store not read: the secret is deleted all the same": { mode: "remove", dryRun: true, observed: { ...nothing, secret: { kind: "unread" } }, action: "delete", steps: ["delete-secret"] },
  "remove with nothing anywhere: nothing to do": { mode: "remove", observed: nothing, action: "none", steps: [], says: "no runner and no secret" },
  "remove keeps another GitLab's secret": { mode: "remove", observed: { ...nothing, secret: { kind: "foreign", gitlabUrl: "https://old.example.com" } }, action: "none", steps: [] },
};

describe.each(Object.entries(table))("%s", (_name, row) => {
  const settings: PlanSettings = { mode: row.mode, dryRun: row.dryRun ?? false, gitlabUrl: model.gitlab.url };
  const plan = planShard(settings, desired, row.observed);

  test(`plans ${row.action}: ${row.steps.join("; ") || "no steps"}`, () => {
    expect(plan.action).toBe(row.action);
    expect(plan.steps.map(compact)).toEqual(row.steps);
    if (row.says) expect([plan.reason, ...plan.notes].join("\n")).toContain(row.says);
  });
});

test("a runner found is named in the plan, a blocked plan says why in full", () => {
  const blocked = planShard({ mode: "reconcile", dryRun: false, gitlabUrl: model.gitlab.url }, desired, { ...healthy, runner: runner(7, { runner_type: "project_type" }) });

  expect(blocked.runnerId).toBe(7);
  expect(blocked.blocked).toContain("GitLab cannot change a runner's type");
  expect(blocked.blocked).toContain(`onboard --remove --shard ${shard.name}`);
});

test("drift is shown with the old and the new value", () => {
  const plan = planShard({ mode: "reconcile", dryRun: true, gitlabUrl: model.gitlab.url }, desired, { ...healthy, runner: runner(7, { maximum_timeout: 900 }) });

  expect(plan.changes).toEqual([`maximum_timeout: 900 -> ${desired.runner.maximum_timeout}`]);
  expect(plan.changedFields).toEqual(["maximum_timeout"]);
});

test("a dry run says duplicates would be deleted; a run says they are", () => {
  const observed = { ...healthy, duplicates: [runner(9)] };
  const planned = planShard({ mode: "reconcile", dryRun: true, gitlabUrl: model.gitlab.url }, desired, observed);
  const done = planShard({ mode: "reconcile", dryRun: false, gitlabUrl: model.gitlab.url }, desired, observed);

  expect(planned.notes.join("\n")).toContain("they would be deleted");
  expect(done.notes.join("\n")).toContain("they are deleted");
});

test("steps read as sentences naming runners and the secret's place", () => {
  const plan = planShard({ mode: "remove", dryRun: true, gitlabUrl: model.gitlab.url }, desired, { ...healthy, duplicates: [runner(9)] });

  expect(formatSteps(plan)).toEqual(["1. delete runner #7", `2. delete ${desired.secret}`, "3. delete duplicate runner #9"]);
});
