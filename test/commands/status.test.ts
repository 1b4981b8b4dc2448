/** `status`: the whole fleet as GitLab sees it, against the fake GitLab. */
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runOnboard } from "../../app/commands/onboard";
import { formatStatusReport, runStatus, type StatusOptions } from "../../app/commands/status";
import { runnerMarker } from "../../lib/gitlab/runner-spec";
import { TOKEN_CHECK_SYSTEM_ID } from "../../lib/gitlab/verify-token";
import { FakeGitLab, type FakeRunner } from "../support/fake-gitlab";
import { useFakeGitLab } from "../support/fake-gitlab-setup";
import { runBinAsync, runInProcess, STACK_TRACE_LINE } from "../support/cli";
import { writeFleet, type FleetSetup } from "../support/fleet-models";
import { fakeClock } from "../onboard/helpers";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const gitlab = useFakeGitLab();
let fake: FakeGitLab;
let fleet: FleetSetup;

beforeEach(async () => {
  fake = gitlab.fake;
  fleet = writeFleet(fake, [
    { id: "cell-1", from: "cell-1" },
    { id: "cell-2", from: "cell-2" },
  ]);
  for (const model of Object.values(fleet.models)) {
    await runOnboard({ runnerModel: model, env: fleet.env, ...fakeClock(), log: () => {} });
  }
});

function runnerOf(cell: string, shard: string): FakeRunner {
  const model = fleet.models[cell];
  const marker = runnerMarker(model, model.shards.find((candidate) => candidate.name === shard)!);
  return [...fake.runners.values()].find((runner) => runner.maintenance_note.includes(marker))!;
}

/** Every shard of every cell with its managers online and recently seen. */
function allOnline(): void {
  for (const [cell, model] of Object.entries(fleet.models)) {
    for (const shard of model.shards) {
      for (let slot = 0; slot < shard.managers.count; slot += 1) fake.addManager(runnerOf(cell, shard.name).id, 3 * MINUTE, `s_${cell}_${shard.name}_${slot}`);
    }
  }
}

function status(options: Partial<StatusOptions> = {}) {
  return runStatus({ modelsDir: fleet.dir, env: fleet.env, log: () => {}, ...options });
}

test("a healthy fleet: every cell and shard, managers with their last contact, tokens verified, running jobs; exit 0", async () => {
  allOnline();
  const small = runnerOf("cell-1", "small-amd64");
  for (let index = 0; index < 3; index += 1) fake.addJob(small.id, "running");
  fake.addJob(small.id, "success");
  const managersBefore = [...fake.runners.values()].map((runner) => runner.managers.length);

  const report = await status();

  expect(report.exitCode).toBe(0);
  expect(report.attention).toEqual([]);
  expect(report.cells.map((cell) => [cell.cell, cell.shards.map((shard) => shard.shard)])).toEqual([
    ["cell-1", ["small-amd64", "large-amd64"]],
    ["cell-2", ["spot-amd64"]],
  ]);
  const shard = report.cells[0].shards[0];
  expect(shard).toMatchObject({
    runnerId: small.id,
    onlineManagers: 2,
    expectedManagers: 2,
    token: "valid",
    runnerVersions: ["19.5.0"],
    jobs: { running: 3, max: 120 },
    workers: { inUse: null, max: 120 },
  });
  expect(shard.workers.inUseNote).toContain("not reported by GitLab");
  expect(shard.managers.map((manager) => [manager.systemId, manager.status, manager.lastContact])).toEqual([
    ["s_cell-1_small-amd64_0", "online", "3m ago"],
    ["s_cell-1_small-amd64_1", "online", "3m ago"],
  ]);
  // Verifying the tokens left no manager behind.
  expect([...fake.runners.values()].map((runner) => runner.managers.length)).toEqual(managersBefore);
  expect(fake.requests.filter((request) => request.path === "/api/v4/runners/verify")).toHaveLength(3);
  const text = formatStatusReport(report);
  expect(text).toMatch(new RegExp(`small-amd64  runner #${small.id}  managers 2/2 online  token valid  jobs 3/120 running  workers in use: not reported by GitLab \\(max 120\\)  runner 19\\.5\\.0`));
  expect(text).toMatch(/s_cell-1_small-amd64_0 +online +last contact 3m ago/);
  expect(text).toContain("all 2 cell(s) healthy");
});

test("needs attention: offline, stale and never-contacted managers, each named with its last contact; exit 1", async () => {
  allOnline();
  const large = runnerOf("cell-1", "large-amd64");
  fake.addManager(large.id, 3 * HOUR, "s_offline");
  fake.addManager(large.id, 10 * 24 * HOUR, "s_stale");
  fake.addManager(large.id, null, "s_new");

  const report = await status();

  expect(report.exitCode).toBe(1);
  expect(report.attention).toEqual([
    "cell cell-1, shard large-amd64: manager s_offline is offline, last contact 3h ago (a replaced VM? onboard --prune removes it)",
    "cell cell-1, shard large-amd64: manager s_stale is stale, last contact 10d ago (a replaced VM? onboard --prune removes it)",
    "cell cell-1, shard large-amd64: manager s_new has never contacted GitLab (a replaced VM? onboard --prune removes it)",
  ]);
});

test("a silent manager of a shard short of online managers gets no replaced-VM hint", async () => {
  const spot = runnerOf("cell-2", "spot-amd64");
  fake.addManager(spot.id, 3 * MINUTE, "s_up");
  fake.addManager(spot.id, 3 * HOUR, "s_down");

  const report = await status({ models: ["cell-2"] });

  expect(report.attention).toEqual([
    "cell cell-2, shard spot-amd64: manager s_down is offline, last contact 3h ago",
    "cell cell-2, shard spot-amd64: 1 of 2 managers online",
  ]);
});

test("needs attention: a missing runner, a refused token, a token of another runner, a missing store entry, too few managers", async () => {
  allOnline();
  fake.runners.delete(runnerOf("cell-1", "small-amd64").id);
  runnerOf("cell-1", "large-amd64").token = `glrt-t1_${"x".repeat(20)}`;
  rmSync(join(fleet.secretsDir, "cell-2--spot-amd64.json"));
  const spot = runnerOf("cell-2", "spot-amd64");
  spot.managers.pop();

  const report = await status();

  expect(report.exitCode).toBe(1);
  const shards = report.cells.flatMap((cell) => cell.shards);
  expect(shards.map((shard) => [shard.shard, shard.token])).toEqual([
    ["small-amd64", "not-checked"],
    ["large-amd64", "refused"],
    ["spot-amd64", "missing"],
  ]);
  expect(report.attention).toEqual([
    "cell cell-1, shard small-amd64: no runner in GitLab: run onboard for this cell",
    expect.stringMatching(/^cell cell-1, shard large-amd64: the stored token does not work: GitLab refused the token \(403\)/),
    "cell cell-2, shard spot-amd64: 1 of 2 managers online",
    `cell cell-2, shard spot-amd64: no token for runner #${spot.id} in the secret store: run onboard for this cell`,
  ]);
  expect(JSON.stringify(report)).not.toMatch(/glrt-[A-Za-z0-9_]{8}/);
});

test("a stored token of another runner needs attention", async () => {
  allOnline();
  const small = runnerOf("cell-1", "small-amd64");
  const file = join(fleet.secretsDir, "cell-1--small-amd64.json");
  const other = fake.seedRunner();
  writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, "utf8")), token: other.token }));

  const report = await status({ models: ["cell-1"] });

  expect(report.cells[0].shards[0]).toMatchObject({ token: "other-runner" });
  expect(report.attention).toEqual([`cell cell-1, shard small-amd64: the stored token belongs to runner #${other.id}, not #${small.id}: run onboard for this cell`]);
});

test("--model narrows to the cells named; --no-verify asks GitLab nothing with a runner token", async () => {
  allOnline();

  const report = await status({ models: ["cell-2"], verifyTokens: false });

  expect(report.cells.map((cell) => cell.cell)).toEqual(["cell-2"]);
  expect(report.cells[0].shards[0].token).toBe("not-checked");
  expect(report.exitCode).toBe(0);
  expect(fake.requests.filter((request) => request.path.startsWith("/api/v4/runners/verify") || request.path === "/api/v4/runners/managers")).toEqual([]);
});

test("a runner version other than the model's is a note, not a page", async () => {
  allOnline();
  runnerOf("cell-2", "spot-amd64").managers[0].version = "19.4.0";

  const report = await status({ models: ["cell-2"] });

  expect(report.exitCode).toBe(0);
  expect(report.cells[0].shards[0].runnerVersions).toEqual(["19.4.0", "19.5.0"]);
  expect(report.cells[0].shards[0].notes).toEqual(["runner version 19.4.0 differs from the model's 19.5.0"]);
});

test("GitLab out of reach: the cell needs attention, and the run ends without waiting out every shard", async () => {
  const url = fake.url;
  await fake.stop();
  const started = Date.now();

  const report = await status({ models: ["cell-1"], retryTimeout: 0 });

  expect(report.exitCode).toBe(1);
  expect(report.attention).toHaveLength(2);
  expect(report.attention[0]).toContain(`cannot reach GitLab at ${url}`);
  expect(Date.now() - started).toBeLessThan(10_000);
  await fake.start();
});

// The first case runs bin/status itself; the others run in process, through the same runCli path.
describe("bin/status", () => {
  it("prints JSON and exits 1 when a manager is offline", async () => {
    allOnline();
    fake.addManager(runnerOf("cell-2", "spot-amd64").id, 5 * HOUR, "s_gone");

    const result = await runBinAsync("status", ["--models-dir", fleet.dir, "--json"], { env: fleet.env });

    expect(result.status).toBe(1);
    const report = JSON.parse(result.stdout);
    expect(report.attention).toEqual(["cell cell-2, shard spot-amd64: manager s_gone is offline, last contact 5h ago (a replaced VM? onboard --prune removes it)"]);
    expect(result.stdout).not.toContain(fake.adminToken);
    expect(result.stdout).not.toContain(TOKEN_CHECK_SYSTEM_ID);
  });

  it("prints text and exits 0 for a healthy cell", async () => {
    allOnline();

    const result = await runInProcess("status", ["--models-dir", fleet.dir, "--model", "cell-1"], { env: fleet.env });

    expect(result.status).toBe(0);
    expect(result.stdout).toContain("all 1 cell(s) healthy");
  });

  it("fails with 1 when the cell's GitLab token is not set, saying which variable", async () => {
    const result = await runInProcess("status", ["--models-dir", fleet.dir], { env: { ...fleet.env, GITLAB_TOKEN: "" } });

    expect(result.status).toBe(1);
    expect(result.stdout).toContain("cell cell-1: not checked: $GITLAB_TOKEN is not set");
  });

  it("with --read-state and no engine on PATH, fails with 1 naming what it looked for, before GitLab is asked", async () => {
    const asked = fake.requests.length;
    const result = await runInProcess("status", ["--models-dir", fleet.dir, "--read-state"], { env: { ...fleet.env, PATH: "/nonexistent-bin" } });

    expect(result.status).toBe(1);
    expect(result.stderr).toContain("no usable Terraform engine: looked for terraform (not found on PATH");
    expect(result.stderr).not.toMatch(STACK_TRACE_LINE);
    expect(fake.requests.length).toBe(asked);
  });

  it("fails with 2 on an unknown model, without a stack trace", async () => {
    const result = await runInProcess("status", ["--models-dir", fleet.dir, "--model", "cell-9"], { env: fleet.env });

    expect(result.status).toBe(2);
    expect(result.stderr).toContain("cell-9");
    expect(result.stderr).not.toMatch(STACK_TRACE_LINE);
  });
});
