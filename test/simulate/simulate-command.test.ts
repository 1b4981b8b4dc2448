/** ./bin/simulate as a person runs it: both examples on the synthetic week, charts, and refusals (exit 2). */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runBin, runInProcess, STACK_TRACE_LINE } from "../support/cli";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "simulate-command-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("simulate on the examples' synthetic week", () => {
  it.each(["cell-1", "cell-2"])("reports every shard of %s with --json, as the issue's fields", async (cell) => {
    const result = await runInProcess("simulate", ["--model", cell, "--synthetic", "office-week", "--json", "--no-advice"]);
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report.cell).toBe(cell);
    expect(report.shards.length).toBeGreaterThan(0);
    for (const shard of report.shards) {
      expect(shard.jobs).toBeGreaterThan(1000);
      const wait = shard.wait_seconds;
      expect(wait.p50).toBeLessThanOrEqual(wait.p95);
      expect(wait.p95).toBeLessThanOrEqual(wait.p99);
      expect(wait.p99).toBeLessThanOrEqual(wait.max);
      expect(shard.instance_hours.total).toBeCloseTo(shard.instance_hours.busy + shard.instance_hours.idle, 6);
      expect(shard.cost_usd).toBeGreaterThan(0);
      expect(shard.hourly.demand).toHaveLength(168);
    }
  });

  it("writes the trace it simulated, and simulating that file gives the same report", async () => {
    const trace = join(dir, "week.csv");
    const first = await runInProcess("simulate", ["--model", "cell-1", "--synthetic", "office-week", "--seed", "3", "--out", trace, "--json", "--no-advice"]);
    const second = await runInProcess("simulate", ["--model", "cell-1", "--trace", trace, "--json", "--no-advice"]);
    expect(second.status).toBe(0);
    const waits = (stdout: string) => JSON.parse(stdout).shards.map((shard: { wait_seconds: { p95: number } }) => Math.round(shard.wait_seconds.p95 * 100));
    expect(waits(second.stdout)).toEqual(waits(first.stdout));
  });

  it("prints its deletion time and what it assumed where gitlab-runner's source does not say, and bills a slower deletion", async () => {
    const args = ["--model", "cell-1", "--synthetic", "office-week", "--shard", "large-amd64", "--no-advice"];
    const quick = await runInProcess("simulate", [...args, "--delete-time", "0s"]);
    const slow = await runInProcess("simulate", [...args, "--delete-time", "5m"]);
    expect(slow.status).toBe(0);
    expect(slow.stdout).toContain("boot 90 s, delete 5.0 min, check_interval 3.0 s");
    expect(slow.stdout).toContain("  assumed: 1 job request in flight per manager, each reserving a slot; idle removals checked every 60 s, most recently added idle instance first; reservation throttling not modelled\n");
    // max_use_count 1: every job's worker is deleted after it, and billed 5 minutes more each time.
    const hours = (stdout: string) => Number(/instances {7}([0-9,.]+) instance-hours/.exec(stdout)![1].replace(/,/g, ""));
    expect(hours(slow.stdout) - hours(quick.stdout)).toBeGreaterThan(5000 * (5 / 60) * 0.9);
    const json = JSON.parse((await runInProcess("simulate", [...args, "--json"])).stdout);
    expect(json.delete_seconds).toBe(45);
    expect(json.assumptions.requests_in_flight_per_manager).toBe(1);
  });

  it("draws the week as SVG, or as Mermaid xychart-beta blocks in a .md file", async () => {
    const svg = join(dir, "week.svg");
    const markdown = join(dir, "week.md");
    expect((await runInProcess("simulate", ["--model", "cell-1", "--synthetic", "office-week", "--chart", svg, "--no-advice"])).status).toBe(0);
    expect((await runInProcess("simulate", ["--model", "cell-1", "--synthetic", "office-week", "--chart", markdown, "--no-advice"])).status).toBe(0);
    const picture = readFileSync(svg, "utf8");
    expect(picture).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    expect(picture).toContain("cell-1/small-amd64");
    expect(picture).toContain("cell-1/large-amd64");
    expect(picture.match(/<polyline /g)).toHaveLength(2);
    const blocks = readFileSync(markdown, "utf8").split("```mermaid\nxychart-beta");
    expect(blocks).toHaveLength(3);
    expect(blocks[1]).toMatch(/\n {2}bar \[(\d+(\.\d)?, ){167}\d+(\.\d)?\]\n/);
  });

  it("advises an idle_count per policy against --target-wait, with its monthly cost", async () => {
    const result = await runInProcess("simulate", ["--model", "cell-1", "--synthetic", "office-week", "--shard", "small-amd64", "--target-wait", "20s", "--json"]);
    expect(result.status).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report.target_wait_seconds).toBe(20);
    expect(report.advice.map((entry: { policy: number }) => entry.policy)).toEqual([0, 1]);
    for (const entry of report.advice) {
      if (entry.advised_idle_count === null) continue;
      expect(entry.advised_p95_wait_seconds).toBeLessThanOrEqual(20);
      expect(entry.monthly_cost_delta_usd).toBeCloseTo(entry.advised_monthly_cost_usd - entry.monthly_cost_usd, 6);
    }
  });

  it("reclaims spot workers only, at --spot-interruptions, and retries their jobs", async () => {
    const spot = JSON.parse((await runInProcess("simulate", ["--model", "cell-2", "--synthetic", "office-week", "--spot-interruptions", "0.2", "--json", "--no-advice"])).stdout);
    expect(spot.shards[0].spot.interruptions).toBeGreaterThan(0);
    expect(spot.shards[0].spot.jobs_interrupted).toBeGreaterThan(0);
    const onDemand = JSON.parse((await runInProcess("simulate", ["--model", "cell-1", "--synthetic", "office-week", "--spot-interruptions", "0.2", "--json", "--no-advice"])).stdout);
    expect(onDemand.shards.map((shard: { spot: unknown }) => shard.spot)).toEqual([null, null]);
  });

  it("runs as the bin/ executable", () => {
    const result = runBin("simulate", ["--model", "cell-2", "--synthetic", "office-week", "--no-advice"]);
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^cell-2: [\d,]+ jobs from /);
    expect(result.stdout).toContain("spot-amd64");
    expect(result.stdout).toMatch(/wait to start {3}mean /);
  });
});

describe("simulate refuses bad input (exit 2, no stack trace, nothing on stdout)", () => {
  it("fails when a trace row is bad, naming file, line and column", async () => {
    const trace = join(dir, "jobs.csv");
    writeFileSync(trace, "created_at,duration,tags\n2024-01-08T09:00:00Z,60,docker\n2024-01-08T09:01:00Z,soon,docker\n");
    const result = await runInProcess("simulate", ["--model", "cell-1", "--trace", trace]);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain(`${trace}:3:22: duration "soon" is not valid`);
    expect(result.stderr).not.toMatch(STACK_TRACE_LINE);
    expect(result.stdout).toBe("");
  });

  it("fails when --model is missing or given twice: a trace, --out and --chart belong to one cell", async () => {
    const twice = await runInProcess("simulate", ["--model", "cell-1", "--model", "cell-2", "--synthetic", "office-week"]);
    expect(twice.status).toBe(2);
    expect(twice.stderr).toContain("simulate acts on one model; got --model cell-1 and --model cell-2 (run it once per model)");
    const none = await runInProcess("simulate", ["--synthetic", "office-week"]);
    expect(none.status).toBe(2);
    expect(none.stderr).toContain("--model is required: the cell to simulate");
  });

  it("fails when no load or two loads are given", async () => {
    const none = await runInProcess("simulate", ["--model", "cell-1"]);
    expect(none.status).toBe(2);
    expect(none.stderr).toContain("needs one load: --trace <file>, --synthetic <profile> or --export");
    const two = await runInProcess("simulate", ["--model", "cell-1", "--trace", "x.csv", "--synthetic", "office-week"]);
    expect(two.status).toBe(2);
    expect(two.stderr).toContain("got --trace and --synthetic");
  });

  it("fails on an unknown shard, a bad boot time, and synthetic-only flags with a trace", async () => {
    const out = join(dir, "never.csv");
    const shard = await runInProcess("simulate", ["--model", "cell-1", "--synthetic", "office-week", "--shard", "tiny", "--out", out]);
    expect(shard.status).toBe(2);
    expect(existsSync(out)).toBe(false);
    expect(shard.stderr).toContain('--shard "tiny": cell cell-1 has no such shard; expected one of small-amd64, large-amd64');
    const boot = await runInProcess("simulate", ["--model", "cell-1", "--synthetic", "office-week", "--boot-time", "fast"]);
    expect(boot.status).toBe(2);
    expect(boot.stderr).toContain('--boot-time must be a boot time: seconds or a Go duration such as "90s" or "2m", got "fast"');
    const jobs = await runInProcess("simulate", ["--model", "cell-1", "--trace", "x.csv", "--jobs", "10"]);
    expect(jobs.stderr).toContain("--jobs go with --synthetic");
    const window = await runInProcess("simulate", ["--model", "cell-1", "--synthetic", "office-week", "--from", "2024-01-09T00:00:00Z", "--to", "2024-01-08T00:00:00Z"]);
    expect(window.status).toBe(2);
    expect(window.stderr).toContain("--to must be after --from");
    const second = await runInProcess("simulate", ["--model", "cell-1", "--synthetic", "office-week", "--from", "2024-01-09T00:00:30Z"]);
    expect(second.stderr).toContain("--from must be a whole minute");
  });
});
