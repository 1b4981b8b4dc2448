/**
 * A rollout from end to end against stand-ins: the apply child pipeline the toolkit writes for a change to
 * four cells (default policy: a canary, 10 %, the rest), run in GitLab's `needs` order
 * (test/support/gitlab-dag-run.ts), where each gate job is the real gate, run with the arguments its
 * script line gives, against the GitLab stand-in (test/support/fake-gitlab.ts) and a test clock.
 * The done-when of issue 42 with four cells; test/ci/pipeline-rules.test.ts runs the 20-cell pipeline.
 */
import { rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { runGateCommand } from "../../app/commands/gate";
import { renderChildPipeline } from "../../lib/ci/child-pipeline";
import { evaluatePipeline } from "../../lib/ci/gitlab-ci/pipeline";
import { desiredRunner } from "../../lib/gitlab/runner-spec";
import { DEFAULT_ROLLOUT_POLICY } from "../../lib/rollout/policy-schema";
import { planWaves } from "../../lib/rollout/waves";
import type { FakeGitLab, FakeRunner } from "../support/fake-gitlab";
import { useFakeGitLab } from "../support/fake-gitlab-setup";
import { runPipeline } from "../support/gitlab-dag-run";
import { projectVariables } from "../support/pipeline-variables";
import { writeFleet, type FleetSetup } from "../support/fleet-models";

const gitlab = useFakeGitLab();
let fake: FakeGitLab;
let fleet: FleetSetup;
const CELLS = ["cell-a", "cell-b", "cell-c", "cell-d"];
const SINCE = Date.UTC(2026, 10, 23, 10);
const WEEK = 7 * 24 * 3600_000;
const SHA = "89abcdef0123456789abcdef0123456789abcdef";

beforeEach(() => {
  fake = gitlab.fake;
  fleet = writeFleet(fake, CELLS.map((id) => ({ id, from: "cell-1" as const })));
  fake.mergeRequests.addMergeRequest("20", 11, { state: "merged", commits: [SHA] });
  // The default waves and gates; a gate polls every 30 min instead of 5 (the stand-in already holds the jobs of
  // the hours to come, which every poll pages through: fewer polls keep the test quick).
  writeFileSync(join(dirname(fleet.dir), "rollout.yaml"), 'bake:\n  poll: "30m"\n');
});
afterEach(() => rmSync(dirname(fleet.dir), { recursive: true, force: true }));

function runnerOf(cell: string): FakeRunner {
  const model = fleet.models[cell];
  const desired = desiredRunner(model, model.shards[0]);
  return fake.seedRunner({ maintenance_note: desired.maintenance_note, tag_list: [...desired.tag_list], run_untagged: desired.run_untagged, description: desired.description });
}

/** 100 jobs an hour from `startMs` for 2 h, one in `failEvery` failing with runner_system_failure. */
function traffic(runner: FakeRunner, startMs: number, failEvery: number): void {
  for (let index = 0; index < 200; index += 1) {
    const created = startMs + index * 36_000;
    const failed = index % failEvery === failEvery - 1;
    fake.addJob(runner.id, failed ? "failed" : "success", null, {
      created_at: new Date(created).toISOString(),
      started_at: new Date(created + 5000).toISOString(),
      finished_at: new Date(created + 300_000).toISOString(),
      duration: 300,
      queued_duration: 5,
      tag_list: [],
      ...(failed ? { failure_reason: "runner_system_failure" } : {}),
    });
  }
}

/** Runs the rollout: every apply succeeds; each gate is `runner-fleet gate` with its script's arguments. */
async function rollout(canaryFailEvery: number) {
  const waves = planWaves(CELLS.map((cell) => ({ cell, labels: {} })), DEFAULT_ROLLOUT_POLICY);
  const yaml = renderChildPipeline({ mode: "apply", cells: CELLS, base: "0123abcd", waves });
  const outcome = evaluatePipeline(yaml, { ...projectVariables, CI_COMMIT_BRANCH: "main", CI_PIPELINE_SOURCE: "parent_pipeline" });
  if (!outcome.created) throw new Error(outcome.reason);
  // Last week every cell failed 1 % for the runner; after the change the canary fails one job in `canaryFailEvery`.
  for (const cell of CELLS) {
    const runner = runnerOf(cell);
    traffic(runner, SINCE - WEEK, 100);
    traffic(runner, SINCE, cell === waves[0].cells[0] ? canaryFailEvery : 100);
  }
  const reports: string[] = [];
  const gateOutcomes: Record<string, "success" | "failed"> = {};
  // The gates in wave order, each judged as its job would be once the applies before it succeeded.
  for (const job of outcome.jobs.filter((entry) => entry.name.startsWith("gate:"))) {
    const before = runPipeline(outcome.jobs, gateOutcomes);
    if (before[job.name] !== "success") break;
    const line = (job.definition.script as string[])[0];
    const flag = (name: string) => line.match(new RegExp(`--${name} '?([^' ]+)'?`))?.[1];
    let now = SINCE;
    const result = await runGateCommand({
      wave: flag("wave")!,
      cells: flag("cells")!.split(","),
      notYetRolled: flag("not-yet-rolled")!.split(","),
      manual: line.includes("--manual"),
      post: line.includes("--post"),
      cwd: dirname(fleet.dir),
      modelsDir: fleet.dir,
      sinceMs: SINCE,
      env: { GITLAB_TOKEN: fake.adminToken, CI_SERVER_URL: fake.url, CI_PROJECT_ID: "20", CI_PIPELINE_ID: "77", CI_COMMIT_SHA: SHA },
      clock: { now: () => now, sleep: async (ms) => void (now += ms) },
      log: () => {},
    });
    reports.push(result.summary);
    gateOutcomes[job.name] = result.exitCode === 0 ? "success" : "failed";
  }
  const run = runPipeline(outcome.jobs, gateOutcomes);
  return { waves, run, reports, applied: CELLS.filter((cell) => run[`apply:${cell}`] === "success") };
}

describe("a rollout of four cells against the stand-ins", () => {
  it("a healthy canary promotes: both gates pass and every wave applies", async () => {
    const { waves, run, applied, reports } = await rollout(100);
    expect(waves.map((wave) => wave.cells)).toEqual([["cell-a"], ["cell-b"], ["cell-c", "cell-d"]]);
    expect(run["gate:canary"]).toBe("success");
    expect(run["gate:ten-percent"]).toBe("success");
    expect(applied).toEqual(CELLS);
    expect(reports.map((report) => report.split("\n")[0])).toEqual(["gate canary: passed", "gate ten-percent: passed"]);
  });

  it("fails the rollout when the canary's jobs fail with runner_system_failure at five times the baseline: no later wave applies, the merge request says why", async () => {
    const { run, applied, reports } = await rollout(20);
    expect(run["gate:canary"]).toBe("failed");
    expect(applied).toEqual(["cell-a"]);
    expect(["cell-b", "cell-c", "cell-d"].map((cell) => run[`apply:${cell}`])).toEqual(["skipped", "skipped", "skipped"]);
    expect(reports).toHaveLength(1);
    expect(reports[0]).toContain("gate canary: FAILED on runner failures; the rollout stops here, later waves do not apply");
    expect(reports[0]).toContain("wave 5/100 = 5.00 % (5.0x the baseline), baseline 4/400 = 1.00 %");
    const [note] = fake.mergeRequests.notes("20", 11);
    expect(note.body).toContain("gate canary: FAILED on runner failures");
  });
});
