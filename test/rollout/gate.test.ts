/**
 * The gate after a wave, run as the pipeline's gate job runs it (runGateCommand), against the GitLab
 * stand-in (test/support/fake-gitlab.ts): the cells' runners found by their cell tag (GET /runners?tag_list=),
 * their jobs from GET /runners/:id/jobs (doc/api/runners.md: order_by=id, sort=desc, offset pages with
 * x-next-page) with the job entity's failure_reason and queued_duration, a 429 with Retry-After on the way,
 * and the merged merge request's note (doc/api/commits.md, doc/api/notes.md). Time is a test clock: a
 * sleep moves it, so a six-hour wait takes milliseconds.
 */
import { rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { runGateCommand, type GateOptions } from "../../app/commands/gate";
import { desiredRunner } from "../../lib/gitlab/runner-spec";
import type { FakeGitLab, FakeRunner } from "../support/fake-gitlab";
import { useFakeGitLab } from "../support/fake-gitlab-setup";
import { runInProcess } from "../support/cli";
import { writeFleet, type FleetSetup } from "../support/fleet-models";

const gitlab = useFakeGitLab();
let fake: FakeGitLab;
let fleet: FleetSetup;
/** The wave's applies finished here (a Monday, 10:00 UTC). */
const SINCE = Date.UTC(2026, 10, 23, 10);
const WEEK = 7 * 24 * 3600_000;
const MERGED_SHA = "0123456789abcdef0123456789abcdef01234567";

const POLICY = ["bake:", '  duration: "1h"', "  jobs: 100", '  max_wait: "3h"', '  poll: "30m"', ""].join("\n");

beforeEach(() => {
  fake = gitlab.fake;
  fleet = writeFleet(fake, [
    { id: "cell-a", from: "cell-1" },
    { id: "cell-b", from: "cell-1" },
    { id: "cell-c", from: "cell-1" },
  ]);
  writeFileSync(join(dirname(fleet.dir), "rollout.yaml"), POLICY);
});
afterEach(() => rmSync(dirname(fleet.dir), { recursive: true, force: true }));

/** The cell's small-amd64 runner as onboard leaves it (its marker, its tags and the cell tag runner-fleet:<cell>). */
function cellRunner(cell: string): FakeRunner {
  const model = fleet.models[cell];
  const desired = desiredRunner(model, model.shards[0]);
  return fake.seedRunner({ maintenance_note: desired.maintenance_note, tag_list: [...desired.tag_list], run_untagged: desired.run_untagged, description: desired.description });
}

/** `count` jobs evenly over [startMs, startMs + spanMs), every `failEvery`-th failing with `reason`; ids ascend with time, as in GitLab. */
function addJobs(runner: FakeRunner, startMs: number, spanMs: number, count: number, failEvery: number, reason = "runner_system_failure", queued = 5): void {
  for (let index = 0; index < count; index += 1) {
    const created = startMs + Math.floor((index * spanMs) / count);
    const failed = failEvery > 0 && index % failEvery === failEvery - 1;
    fake.addJob(runner.id, failed ? "failed" : "success", null, {
      created_at: new Date(created).toISOString(),
      started_at: new Date(created + queued * 1000).toISOString(),
      finished_at: new Date(created + 300_000).toISOString(),
      duration: 300,
      queued_duration: queued,
      tag_list: [],
      ...(failed ? { failure_reason: reason } : {}),
    });
  }
}

/** A fleet whose baseline fails 1 % for the runner: the canary last week, and two cells not yet rolled this hour. */
function baselineTraffic(): { canary: FakeRunner } {
  const canary = cellRunner("cell-a");
  addJobs(canary, SINCE - WEEK - 3600_000, 5 * 3600_000, 500, 100);
  for (const cell of ["cell-b", "cell-c"]) addJobs(cellRunner(cell), SINCE - 3600_000, 5 * 3600_000, 500, 100);
  return { canary };
}

function gate(extra: Partial<GateOptions> = {}) {
  let now = SINCE;
  const log: string[] = [];
  const options: GateOptions = {
    wave: "canary",
    cells: ["cell-a"],
    notYetRolled: ["cell-b", "cell-c"],
    cwd: dirname(fleet.dir),
    modelsDir: fleet.dir,
    sinceMs: SINCE,
    env: { GITLAB_TOKEN: fake.adminToken },
    clock: {
      now: () => now,
      sleep: async (ms) => {
        now += ms;
      },
    },
    log: (line) => log.push(line),
    ...extra,
  };
  return { run: () => runGateCommand(options), log, elapsed: () => now - SINCE };
}

describe("gate", () => {
  it("passes a healthy canary after the bake (1 h and 100 jobs), printing the numbers it used", async () => {
    const { canary } = baselineTraffic();
    addJobs(canary, SINCE, 4 * 3600_000, 800, 100);
    const { run, log, elapsed } = gate();
    const result = await run();
    expect(result.outcome).toBe("pass");
    expect(result.exitCode).toBe(0);
    // Polls at 0 and 30 min are still baking; at 1 h the bake is over with 200 jobs.
    expect(elapsed()).toBe(3600_000);
    expect(result.summary).toContain("gate canary: passed");
    expect(result.summary).toMatch(/runner failures \(runner_system_failure, stuck_or_timeout_failure, scheduler_failure\): wave 2\/200 = 1\.00 %/);
    expect(result.summary).toContain("limit 2.50 % (baseline x 2 + 0.50 %)");
    expect(log.join("\n")).toContain("(still baking)");
  });

  it("fails when the canary's jobs fail with runner_system_failure at five times the baseline: which signal, by how much, against what", async () => {
    const { canary } = baselineTraffic();
    addJobs(canary, SINCE, 4 * 3600_000, 800, 20);
    const { run } = gate();
    const result = await run();
    expect(result.outcome).toBe("fail");
    expect(result.exitCode).toBe(1);
    expect(result.summary).toContain("gate canary: FAILED on runner failures; the rollout stops here, later waves do not apply");
    expect(result.summary).toContain("wave 10/200 = 5.00 % (5.0x the baseline)");
    // Baseline: the canary over the same hour a week earlier (100 jobs, 1 failure) and the two cells not yet rolled over this hour (200, 2).
    expect(result.summary).toContain("baseline 3/300 = 1.00 %");
    // Pooled p = 13/500; z = (0.05 - 0.01) / sqrt(0.026 x 0.974 x (1/200 + 1/300)) = 2.75, above the 99 % quantile 2.33.
    expect(result.summary).toContain("two-proportion z = 2.75 against 2.33 (one-sided, 99 %): FAILED");
    expect(result.summary).toContain("per cell since the apply: cell-a 10/200");
  });

  it("fails when the change makes jobs wait: the queue percentile against the baseline's", async () => {
    const { canary } = baselineTraffic();
    addJobs(canary, SINCE, 4 * 3600_000, 800, 100, "runner_system_failure", 120);
    const result = await gate().run();
    expect(result.outcome).toBe("fail");
    expect(result.summary).toContain("FAILED on queue time");
    expect(result.summary).toContain("queue time p90 (queued_duration): wave 120.0 s, baseline 5.0 s; limit 37.5 s (baseline x 1.5 + 30s): FAILED");
  });

  it("does not count failures for other reasons (script_failure is the job's, not the runner's)", async () => {
    const { canary } = baselineTraffic();
    addJobs(canary, SINCE, 4 * 3600_000, 800, 20, "script_failure");
    const result = await gate().run();
    expect(result.outcome).toBe("pass");
    expect(result.summary).toContain("wave 0/200 = 0.00 %");
  });

  it("fails when traffic is too low: it waits up to max_wait, then stops with \"not enough jobs to judge\", never passing", async () => {
    const { canary } = baselineTraffic();
    addJobs(canary, SINCE, 4 * 3600_000, 40, 0);
    const { run, log, elapsed } = gate();
    const result = await run();
    expect(result.outcome).toBe("not-enough-jobs");
    expect(result.exitCode).toBe(1);
    // Polls every 30 min from 0 to 3 h (seven), then it stops: 30 of the 40 jobs came within the 3 h.
    expect(elapsed()).toBe(3 * 3600_000);
    expect(log.filter((line) => line.includes("since the apply;"))).toHaveLength(7);
    expect(result.summary).toContain("gate canary: not enough jobs to judge after 3h: 30 job(s) in the wave and 900 in the baseline, 100 needed in each");
  });

  it("reads the pages back to last week once, then only the wave's window on each poll, through a 429 (Retry-After)", async () => {
    const { canary } = baselineTraffic();
    addJobs(canary, SINCE, 3600_000, 200, 100);
    fake.rateLimitNext("GET", /^\/runners\/\d+\/jobs$/, 1, { retryAfterSeconds: 1 });
    const result = await gate().run();
    expect(result.outcome).toBe("pass");
    const listings = fake.requests.filter((request) => request.path === `/api/v4/runners/${canary.id}/jobs`);
    expect(listings.filter((request) => request.status === 429)).toHaveLength(1);
    // The canary's runner holds 700 jobs, 7 pages of 100 newest first: the first poll reads all 7 (back to last week),
    // the polls at 30 min and 1 h the 2 pages of the wave's hour and the page that ends before it: 7 + 3 + 3.
    expect(listings.filter((request) => request.status === 200).map((request) => new URLSearchParams(request.query).get("page"))).toEqual(
      ["1", "2", "3", "4", "5", "6", "7", "1", "2", "3", "1", "2", "3"],
    );
  });

  it("posts the outcome on the merged merge request, with how to roll back or promote", async () => {
    const { canary } = baselineTraffic();
    addJobs(canary, SINCE, 4 * 3600_000, 800, 20);
    fake.mergeRequests.addMergeRequest("20", 7, { state: "merged", commits: [MERGED_SHA] });
    const ci = { CI_SERVER_URL: fake.url, CI_PROJECT_ID: "20", CI_PIPELINE_ID: "900", CI_COMMIT_SHA: MERGED_SHA, GITLAB_TOKEN: fake.adminToken };
    const result = await gate({ post: true, env: ci }).run();
    expect(result.note).toEqual({ action: "created", mergeRequestIid: 7 });
    const [note] = fake.mergeRequests.notes("20", 7);
    expect(note.body).toContain("gate canary: FAILED on runner failures");
    expect(note.body).toContain("Nothing was rolled back. To roll back the cells already rolled, run the manual job `rollback`");
    expect(note.body).toContain("`promote:canary`");
  });

  it("passes a waiting gate once a person ran promote:<wave>, naming who", async () => {
    baselineTraffic();
    fake.pipelineJobs.add("20", 900, { name: "promote:canary", status: "success", user: { username: "alice" } });
    const ci = { CI_SERVER_URL: fake.url, CI_PROJECT_ID: "20", CI_PIPELINE_ID: "900", GITLAB_TOKEN: fake.adminToken };
    const result = await gate({ env: ci, manual: true }).run();
    expect(result.outcome).toBe("promoted");
    expect(result.summary).toMatch(/^gate canary: promoted by alice \(job #\d+\), not judged$/);
  });

  it("fails when a wave of manual_promotion cells is never promoted: it waits, it does not judge", async () => {
    const { canary } = baselineTraffic();
    addJobs(canary, SINCE, 4 * 3600_000, 800, 100);
    const ci = { CI_SERVER_URL: fake.url, CI_PROJECT_ID: "20", CI_PIPELINE_ID: "901", GITLAB_TOKEN: fake.adminToken };
    const result = await gate({ env: ci, manual: true }).run();
    expect(result.outcome).toBe("waiting-for-promotion");
    expect(result.exitCode).toBe(1);
  });

  it("promote records the person GitLab names in GITLAB_USER_LOGIN", async () => {
    const result = await gate({ promote: true, env: { GITLAB_USER_LOGIN: "bob", CI_JOB_ID: "77" } }).run();
    expect(result.summary).toBe("wave canary promoted by bob (job #77): a waiting gate:canary passes at its next poll; a failed one passes when retried");
  });

  it("fails with exit 2 when promote runs without GITLAB_USER_LOGIN, or a cell's token is missing, before any wait", async () => {
    await expect(gate({ promote: true, env: {} }).run()).rejects.toThrow(/GITLAB_USER_LOGIN/);
    const { run, elapsed } = gate({ env: {} });
    await expect(run()).rejects.toThrow("the gate reads cell cell-a's jobs from GitLab: set $GITLAB_TOKEN");
    expect(elapsed()).toBe(0);
  });
});

describe("runner-fleet gate on the command line", () => {
  it("fails with exit 2 and the policy's line when rollout.yaml is wrong, before asking GitLab anything", async () => {
    writeFileSync(join(dirname(fleet.dir), "rollout.yaml"), "bake:\n  jobs: -1\n");
    const result = await runInProcess("gate", ["--wave", "canary", "--cells", "cell-a", "--models-dir", fleet.dir], { cwd: dirname(fleet.dir), env: { GITLAB_TOKEN: fake.adminToken } });
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/rollout\.yaml:2:9: bake\.jobs: expected number to be >=1, received -1 \(for example jobs: 100\)/);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(fake.requests).toEqual([]);
  });

  it("--json prints the outcome alone on stdout, the summary on stderr", async () => {
    const result = await runInProcess("gate", ["--wave", "canary", "--promote", "--json", "--models-dir", fleet.dir], { cwd: dirname(fleet.dir), env: { GITLAB_USER_LOGIN: "alice", CI_JOB_ID: "42" } });
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      outcome: "promotion-recorded",
      summary: "wave canary promoted by alice (job #42): a waiting gate:canary passes at its next poll; a failed one passes when retried",
      exitCode: 0,
    });
    expect(result.stderr).toBe("wave canary promoted by alice (job #42): a waiting gate:canary passes at its next poll; a failed one passes when retried\n");
  });

  it("fails with exit 2 on a wave name that is not one", async () => {
    const result = await runInProcess("gate", ["--wave", "Canary!", "--cells", "cell-a"]);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('--wave must be a wave name of rollout.yaml such as "canary", got "Canary!"');
  });
});
