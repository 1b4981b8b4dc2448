/**
 * `simulate --export` against the GitLab stand-in (test/support/fake-gitlab.ts, which lists a
 * runner's jobs as doc/api/runners.md says: order_by=id, sort desc by default, offset pages).
 */
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { desiredRunner } from "../../lib/gitlab/runner-spec";
import { readTraceFile } from "../../lib/simulate/read-trace";
import type { FakeGitLab, FakeRunner } from "../support/fake-gitlab";
import { useFakeGitLab } from "../support/fake-gitlab-setup";
import { runInProcess } from "../support/cli";
import { writeFleet, type FleetSetup } from "../support/fleet-models";

const gitlab = useFakeGitLab();
let fake: FakeGitLab;
let fleet: FleetSetup;
const WINDOW_START = Date.UTC(2024, 0, 8) / 1000;
const WINDOW_END = WINDOW_START + 86400;

beforeEach(() => {
  fake = gitlab.fake;
  fleet = writeFleet(fake, [{ id: "cell-1", from: "cell-1" }]);
});
afterEach(() => rmSync(fleet.dir, { recursive: true, force: true }));

/** The shard's runner as onboarding leaves it: its marker in the maintenance note, the shard's tags and the cell's. */
function shardRunner(name: string): FakeRunner {
  const model = fleet.models["cell-1"];
  const shard = model.shards.find((candidate) => candidate.name === name)!;
  const desired = desiredRunner(model, shard);
  return fake.seedRunner({ maintenance_note: desired.maintenance_note, tag_list: [...desired.tag_list], run_untagged: desired.run_untagged, description: desired.description });
}

/** `count` finished jobs `spacing` seconds apart from `start`, oldest first (ids ascend with time, as in GitLab). */
function addJobs(runner: FakeRunner, start: number, count: number, spacing: number, tags?: string[]): void {
  for (let index = 0; index < count; index += 1) {
    const created = start + index * spacing;
    fake.addJob(runner.id, "success", null, {
      created_at: new Date(created * 1000).toISOString(),
      started_at: new Date((created + 5) * 1000).toISOString(),
      finished_at: new Date((created + 305) * 1000).toISOString(),
      duration: 300,
      queued_duration: 5,
      // A job's tags are what its .gitlab-ci.yml asks for: the shard's, not the cell tag onboard adds to the runner.
      tag_list: tags ?? runner.tag_list.filter((tag) => !tag.startsWith("runner-fleet:")),
    });
  }
}

const jobListings = () => fake.requests.filter((request) => /^\/api\/v4\/runners\/\d+\/jobs$/.test(request.path));

describe("simulate --export", () => {
  it("writes the window's jobs of every shard's runner as a trace, reading pages only back to the window's start", async () => {
    const small = shardRunner("small-amd64");
    const large = shardRunner("large-amd64");
    addJobs(small, WINDOW_START - 50_000, 500, 90); // all before the window
    addJobs(small, WINDOW_START + 60, 250, 300, ["saas-linux-small-amd64"]);
    addJobs(large, WINDOW_START + 120, 40, 1800);
    fake.addJob(large.id, "running", null, { created_at: new Date((WINDOW_START + 3600) * 1000).toISOString(), started_at: new Date((WINDOW_START + 3610) * 1000).toISOString(), finished_at: null, duration: null, queued_duration: 10, tag_list: large.tag_list });
    const out = join(fleet.dir, "exported.csv");

    const result = await runInProcess(
      "simulate",
      ["--models-dir", fleet.dir, "--model", "cell-1", "--export", "--out", out, "--from", String(WINDOW_START), "--to", String(WINDOW_END), "--json", "--no-advice"],
      { env: fleet.env },
    );
    expect(result.stderr).toContain("exported shard small-amd64: 250 jobs");
    expect(result.status).toBe(0);
    const trace = readTraceFile(out);
    expect(trace.count).toBe(250 + 40);
    expect(Number.isNaN(trace.queuedDuration[0])).toBe(false);
    expect(readFileSync(out, "utf8").split("\n")[0]).toBe("created_at,duration,tags,queued_duration");
    const report = JSON.parse(result.stdout);
    expect(report.shards.map((shard: { name: string; jobs: number }) => [shard.name, shard.jobs])).toEqual([
      ["small-amd64", 250],
      ["large-amd64", 40],
    ]);
    expect(report.shards[0].recorded_queued_seconds.mean).toBe(5);
    // small: 750 jobs, newest first: pages 1-3 hold the window's 250 and the next 50 older ones; page 3 ends before the window.
    const smallPages = jobListings().filter((request) => request.path.endsWith(`/runners/${small.id}/jobs`));
    expect(smallPages.map((request) => new URLSearchParams(request.query).get("page"))).toEqual(["1", "2", "3"]);
    expect(new URLSearchParams(smallPages[0].query).get("order_by")).toBe("id");
    expect(new URLSearchParams(smallPages[0].query).get("sort")).toBe("desc");
    // The budget: one listing of the cell's runners, each shard's runner read once, and its pages.
    expect(fake.requests.map((request) => request.path)).toEqual([
      "/api/v4/runners/all",
      `/api/v4/runners/${small.id}`,
      ...smallPages.map(() => `/api/v4/runners/${small.id}/jobs`),
      `/api/v4/runners/${large.id}`,
      `/api/v4/runners/${large.id}/jobs`,
    ]);
    expect(result.stderr).toMatch(/\n7 GitLab requests, /);
  });

  it("uses the runner's tags, but the cell's own, for a job GitLab lists without tag_list", async () => {
    const large = shardRunner("large-amd64");
    fake.addJob(large.id, "success", null, { created_at: new Date((WINDOW_START + 60) * 1000).toISOString(), started_at: new Date((WINDOW_START + 70) * 1000).toISOString(), finished_at: null, duration: 60, queued_duration: null, tag_list: undefined as unknown as string[] });
    const out = join(fleet.dir, "exported.csv");
    const result = await runInProcess("simulate", ["--models-dir", fleet.dir, "--model", "cell-1", "--export", "--out", out, "--from", String(WINDOW_START), "--to", String(WINDOW_END), "--no-advice"], { env: fleet.env });
    expect(result.status).toBe(0);
    expect(result.stderr).toContain("shard small-amd64: no runner found in GitLab");
    const trace = readTraceFile(out);
    expect(large.tag_list).toContain("runner-fleet:cell-1");
    expect(trace.tagSets[trace.tagSet[0]]).toEqual(["saas-linux-large-amd64"]);
  });

  it("fails without the model's token, before asking GitLab anything (exit 2)", async () => {
    const result = await runInProcess("simulate", ["--models-dir", fleet.dir, "--model", "cell-1", "--export", "--out", join(fleet.dir, "x.csv")], { env: { ...fleet.env, GITLAB_TOKEN: "" } });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain("--export reads the jobs from GitLab: set $GITLAB_TOKEN");
    expect(fake.requests).toEqual([]);
  });
});
