/**
 * `onboard --prune` against the gitlab.fake GitLab: runners of removed shards and stale
 * managers go, with their secrets; runners without this cell's marker never do,
 * including a neighbour cell whose id starts the same (cell-1 and cell-10).
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { formatOnboardReport, runOnboard, type OnboardOptions } from "../../app/commands/onboard";
import { parseStaleAfter, readRunnerMarker, staleReason } from "../../lib/gitlab/prune";
import { runnerMarker } from "../../lib/gitlab/runner-spec";
import { cellTag } from "../../lib/model/cell-tag";
import type { RunnerModel } from "../../lib/model/schema";
import { runBinAsync, STACK_TRACE_LINE } from "../support/cli";
import { type FakeRunner } from "../support/fake-gitlab";
import { writeFleet, type FleetSetup } from "../support/fleet-models";
import { useFakeGitLab } from "../support/fake-gitlab-setup";
import { fakeClock } from "./helpers";

const gitlab = useFakeGitLab();
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
let fleet: FleetSetup;
/** cell-1 after its large-amd64 shard was removed from the model. */
let shrunk: RunnerModel;
let foreign: FakeRunner;
let lookalike: FakeRunner;

beforeEach(async () => {
  fleet = writeFleet(gitlab.fake, [
    { id: "cell-1", from: "cell-1" },
    { id: "cell-10", from: "cell-1" },
  ]);
  for (const model of Object.values(fleet.models)) await runOnboard({ runnerModel: model, env: fleet.env, ...fakeClock(), log: () => {} });
  foreign = gitlab.fake.seedRunner({ description: "team-x runner", maintenance_note: "hand-made, no marker", tag_list: ["team-x"] });
  lookalike = gitlab.fake.seedRunner({ description: "cell-1x", maintenance_note: "[runner-fleet cell=cell-1x shard=large-amd64]" });
  shrunk = structuredClone(fleet.models["cell-1"]);
  shrunk.shards = shrunk.shards.filter((shard) => shard.name !== "large-amd64");
});

function runnerOf(cell: string, shard: string): FakeRunner {
  const model = fleet.models[cell];
  const marker = runnerMarker(model, model.shards.find((candidate) => candidate.name === shard)!);
  return [...gitlab.fake.runners.values()].find((runner) => runner.maintenance_note.includes(marker))!;
}

function prune(options: Partial<OnboardOptions> = {}) {
  return runOnboard({ runnerModel: shrunk, env: fleet.env, ...fakeClock(), now: Date.now, log: () => {}, prune: true, ...options });
}

const secretFile = (cell: string, shard: string) => join(fleet.secretsDir, `${cell}--${shard}.json`);

/** small-amd64 of cell-1: one manager online, one offline for 3 hours, one gone for 2 days, one registered 3 days ago that never called. */
function agedManagers(): FakeRunner {
  const small = runnerOf("cell-1", "small-amd64");
  gitlab.fake.addManager(small.id, 3 * MINUTE, "s_online");
  gitlab.fake.addManager(small.id, 3 * HOUR, "s_3h");
  gitlab.fake.addManager(small.id, 2 * DAY, "s_2d");
  gitlab.fake.addManager(small.id, null, "s_never").created_at = new Date(Date.now() - 3 * DAY).toISOString();
  return small;
}

test("--dry-run lists the removed shard's runner with its secret and the stale managers, and changes nothing", async () => {
  agedManagers();
  const large = runnerOf("cell-1", "large-amd64");
  const before = gitlab.fake.requests.length;

  const result = await prune({ dryRun: true });

  expect(result.exitCode).toBe(0);
  expect(result.prune!.runners).toEqual([
    expect.objectContaining({ runnerId: large.id, shard: "large-amd64", deleted: false, secret: expect.stringContaining("cell-1--large-amd64.json") }),
  ]);
  expect(result.prune!.managers.map((manager) => [manager.systemId, manager.deleted])).toEqual([
    ["s_2d", false],
    ["s_never", false],
  ]);
  expect(gitlab.fake.requests.slice(before).filter((request) => request.method !== "GET")).toEqual([]);
  expect(gitlab.fake.runners.has(large.id)).toBe(true);
  expect(existsSync(secretFile("cell-1", "large-amd64"))).toBe(true);
  const text = formatOnboardReport(result);
  expect(text).toContain(`would delete runner #${large.id} (never_contacted) of removed shard large-amd64 and its secret`);
  expect(text).toMatch(/would delete manager s_2d of shard small-amd64 \(runner #\d+\): not seen for 2d$/m);
  expect(text).toMatch(/would delete manager s_never of shard small-amd64 \(runner #\d+\): never contacted GitLab, registered 3d ago$/m);
});

test("deletes the removed shard's runner and its secret, and the stale managers with the runner's token; never a runner without this cell's marker", async () => {
  const small = agedManagers();
  const large = runnerOf("cell-1", "large-amd64");
  const neighbours = fleet.models["cell-10"].shards.map((shard) => runnerOf("cell-10", shard.name).id);
  const before = gitlab.fake.requests.length;

  const result = await prune();

  expect(result.exitCode).toBe(0);
  expect(result.prune!.runners).toEqual([expect.objectContaining({ runnerId: large.id, deleted: true, secretRemoved: true })]);
  expect(gitlab.fake.runners.has(large.id)).toBe(false);
  expect(existsSync(secretFile("cell-1", "large-amd64"))).toBe(false);
  expect(small.managers.map((manager) => manager.system_id)).toEqual(["s_online", "s_3h"]);
  // Managers are deleted with the runner token and system_id, as GitLab requires.
  const managerDeletes = gitlab.fake.requests.filter((request) => request.method === "DELETE" && request.path === "/api/v4/runners/managers");
  expect(managerDeletes.map((request) => [request.body.system_id, request.body.token === small.token])).toEqual([
    ["s_2d", true],
    ["s_never", true],
  ]);
  // Untouched: the foreign runner, the look-alike marker, cell-10 (same shard names, an id that starts with cell-1) and its secrets.
  for (const id of [foreign.id, lookalike.id, ...neighbours, small.id]) expect(gitlab.fake.runners.has(id)).toBe(true);
  for (const shard of ["small-amd64", "large-amd64"]) expect(existsSync(secretFile("cell-10", shard))).toBe(true);
  expect(existsSync(secretFile("cell-1", "small-amd64"))).toBe(true);
  expect(gitlab.fake.writeCalls().filter((request) => request.method === "DELETE" && request.path.startsWith("/api/v4/runners/") && request.path !== "/api/v4/runners/managers").map((request) => request.path)).toEqual([
    `/api/v4/runners/${large.id}`,
  ]);
  // An administrator's search covers every runner of the instance, not only the ones the token "owns":
  // each type whole, and each with the cell's tag.
  const listed = gitlab.fake.requests
    .slice(before)
    .filter((request) => request.path === "/api/v4/runners/all")
    .map((request) => new URLSearchParams(request.query))
    .map((query) => `${query.get("type")} ${query.getAll("tag_list[]").join(",")}`.trim());
  expect([...new Set(listed)].sort()).toEqual(["group_type", "group_type runner-fleet:cell-1", "instance_type", "instance_type runner-fleet:cell-1", "project_type", "project_type runner-fleet:cell-1"]);
});

describe("where the runners of removed shards are looked for", () => {
  const reads = (from: number) => gitlab.fake.requests.slice(from).filter((request) => request.method === "GET" && /^\/api\/v4\/runners\/\d+$/.test(request.path)).map((request) => Number(request.path.split("/").pop()));

  /** large-amd64's runner as a version without the cell's tag left it. */
  function fromBeforeTheTag(description?: string): FakeRunner {
    const large = runnerOf("cell-1", "large-amd64");
    large.tag_list = large.tag_list.filter((tag) => tag !== cellTag(shrunk));
    if (description !== undefined) large.description = description;
    return large;
  }

  test("a runner from before the cell's tag with the default description (<cell>-<shard>) is found; the instance's other runners are never read", async () => {
    const large = fromBeforeTheTag("cell-1-large-amd64");
    const before = gitlab.fake.requests.length;

    const result = await prune({ dryRun: true });

    expect(result.prune!.runners.map((runner) => runner.runnerId)).toEqual([large.id]);
    expect(reads(before)).not.toContain(foreign.id);
    expect(reads(before)).not.toContain(lookalike.id);
  });

  test("a runner from before the cell's tag with the model's own description is found with --search-untagged, which reads every runner", async () => {
    const large = fromBeforeTheTag();

    const plain = await prune({ dryRun: true });
    expect(plain.prune!.runners).toEqual([]);
    expect(formatOnboardReport(plain)).toContain("(--search-untagged reads every runner)");

    const before = gitlab.fake.requests.length;
    const searched = await prune({ dryRun: true, searchUntagged: true });
    expect(searched.prune!.runners.map((runner) => runner.runnerId)).toEqual([large.id]);
    expect(searched.prune!.searched).toBe("every runner of the instance");
    expect(reads(before)).toEqual(expect.arrayContaining([foreign.id, lookalike.id]));
  });

  test("a tagged runner whose description was changed by hand is found by its tag", async () => {
    const large = runnerOf("cell-1", "large-amd64");
    large.description = "renamed by someone";

    const result = await prune({ dryRun: true });

    expect(result.prune!.runners.map((runner) => runner.runnerId)).toEqual([large.id]);
  });

  test("someone else's runner carrying the cell's tag but not its marker is read, and never deleted", async () => {
    const impostor = gitlab.fake.seedRunner({ description: "team-z runner", maintenance_note: "made by hand", tag_list: ["team-z", cellTag(shrunk)] });
    const large = runnerOf("cell-1", "large-amd64");
    const before = gitlab.fake.requests.length;

    const result = await prune();

    expect(reads(before)).toContain(impostor.id);
    expect(gitlab.fake.runners.has(impostor.id)).toBe(true);
    expect(result.prune!.runners.map((runner) => runner.runnerId)).toEqual([large.id]);
  });
});

test("with a group Owner's token, searches the model's groups, prunes there, and says what it could not search", async () => {
  const asGroup = (model: RunnerModel) => {
    const copy = structuredClone(model);
    copy.cell.id = "cell-20";
    for (const shard of copy.shards) Object.assign(shard, { runner_type: "group", group_id: 10 });
    return copy;
  };
  const ownerEnv = { ...fleet.env, GITLAB_TOKEN: gitlab.fake.userToken };
  const grouped = asGroup(fleet.models["cell-10"]);
  await runOnboard({ runnerModel: grouped, env: ownerEnv, ...fakeClock(), log: () => {} });
  const groupForeign = gitlab.fake.seedRunner({ runner_type: "group_type", group_id: 10, description: "team-y" });
  const removed = [...gitlab.fake.runners.values()].find((runner) => runner.runner_type === "group_type" && runner.maintenance_note.includes("cell=cell-20 shard=large-amd64"))!;
  const remaining = structuredClone(grouped);
  remaining.shards = remaining.shards.filter((shard) => shard.name !== "large-amd64");

  const result = await runOnboard({ runnerModel: remaining, env: ownerEnv, ...fakeClock(), now: Date.now, log: () => {}, prune: true });

  expect(result.prune!.searched).toBe("the runners of group 10 tagged runner-fleet:cell-20 and the untagged ones named cell-20-… (--search-untagged reads every runner)");
  expect(result.notices).toEqual([expect.stringContaining("not an administrator's")]);
  expect(result.prune!.runners).toEqual([expect.objectContaining({ runnerId: removed.id, deleted: true })]);
  expect(gitlab.fake.runners.has(removed.id)).toBe(false);
  expect(gitlab.fake.runners.has(groupForeign.id)).toBe(true);
  expect(gitlab.fake.runners.has(runnerOf("cell-10", "large-amd64").id)).toBe(true);
});

test("keeps a removed shard's runner whose managers are still online, and fails naming them", async () => {
  const large = runnerOf("cell-1", "large-amd64");
  gitlab.fake.addManager(large.id, 2 * MINUTE, "s_still_running");

  const result = await prune();

  expect(result.exitCode).toBe(1);
  expect(result.problems).toEqual([
    `runner #${large.id} of removed shard large-amd64: still has 1 online manager(s) (s_still_running): run provision to remove the shard's VMs first, then prune`,
  ]);
  expect(gitlab.fake.runners.has(large.id)).toBe(true);
  expect(existsSync(secretFile("cell-1", "large-amd64"))).toBe(true);
});

test("a second run finds nothing left", async () => {
  agedManagers();
  await prune();

  const again = await prune();

  expect(again.prune).toMatchObject({ runners: [], managers: [] });
  expect(formatOnboardReport(again)).toContain("no runners of removed shards");
});

test("--stale-after 2h also takes the manager offline for 3 hours; the online one stays", async () => {
  const small = agedManagers();

  await prune({ staleAfter: "2h" });

  expect(small.managers.map((manager) => manager.system_id)).toEqual(["s_online"]);
});

test("a secret under the removed shard's name that holds another runner's token is left in place", async () => {
  const file = secretFile("cell-1", "large-amd64");
  const other = gitlab.fake.seedRunner();
  writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, "utf8")), runnerId: other.id, token: other.token }));

  const result = await prune();

  expect(result.prune!.runners[0]).toMatchObject({ deleted: true, secretRemoved: false, notes: [expect.stringContaining(`holds runner #${other.id}'s token`)] });
  expect(existsSync(file)).toBe(true);
});

test("fails with exit 1 when a stale manager's runner has no stored token, keeping the manager", async () => {
  const small = agedManagers();
  rmSync(secretFile("cell-1", "small-amd64"));

  const result = await prune();

  expect(result.exitCode).toBe(1);
  expect(result.problems).toEqual([
    expect.stringContaining("shard small-amd64: cannot delete manager s_2d: GitLab deletes managers only with the runner's own token"),
    expect.stringContaining("shard small-amd64: cannot delete manager s_never"),
  ]);
  expect(small.managers).toHaveLength(4);
});

test("a manager left behind by an interrupted token check is pruned whatever its age", () => {
  const now = Date.now();

  expect(staleReason({ system_id: "runner-fleet-token-check", contacted_at: new Date(now).toISOString(), created_at: null }, now, DAY)).toContain("token check");
  expect(staleReason({ system_id: "s_live", contacted_at: new Date(now - MINUTE).toISOString(), created_at: null }, now, DAY)).toBeUndefined();
});

test("reads the marker of exactly one cell and shard", () => {
  expect(readRunnerMarker({ maintenance_note: "Managed ... [runner-fleet cell=cell-10 shard=small-amd64]", description: null })).toEqual({ cell: "cell-10", shard: "small-amd64" });
  expect(readRunnerMarker({ maintenance_note: null, description: "no marker here" })).toBeUndefined();
});

test.each([
  ["7d", 7 * DAY],
  ["36h", 36 * HOUR],
  ["2h30m", 2.5 * HOUR],
])("--stale-after %s is %d ms", (text, ms) => {
  expect(parseStaleAfter(text)).toBe(ms);
});

test.each(["1h", "a week", "-3d"])("fails when --stale-after is %s (exit 2)", async (text) => {
  const requests = gitlab.fake.requests.length;

  await expect(prune({ staleAfter: text })).rejects.toMatchObject({ exitCode: 2 });

  expect(gitlab.fake.requests).toHaveLength(requests);
});

test("fails when --stale-after comes without --prune, or --prune with --shard (exit 2)", async () => {
  await expect(runOnboard({ runnerModel: shrunk, env: fleet.env, staleAfter: "7d" })).rejects.toMatchObject({ exitCode: 2 });
  await expect(prune({ shards: ["small-amd64"] })).rejects.toMatchObject({ exitCode: 2 });
});

describe("bin/onboard --prune", () => {
  it("deletes the runner of a shard removed from the model file, and prints JSON", async () => {
    const file = fleet.fileOf("cell-1");
    const text = readFileSync(file, "utf8");
    writeFileSync(file, text.replace(/\n  # Heavier builds[\s\S]*?\n(?=monitoring:)/, "\n"));
    const large = runnerOf("cell-1", "large-amd64");

    const result = await runBinAsync("onboard", ["--models-dir", fleet.dir, "--model", "cell-1", "--prune", "--json"], { env: fleet.env });

    expect(result.status).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report.mode).toBe("prune");
    expect(report.prune.runners).toEqual([expect.objectContaining({ runnerId: large.id, shard: "large-amd64", deleted: true, secretRemoved: true })]);
    expect(gitlab.fake.runners.has(large.id)).toBe(false);
    expect(result.stdout + result.stderr).not.toMatch(/glrt-[A-Za-z0-9_]{6}/);
  });

  it("refuses a threshold under 2h with exit 2 and no stack trace", async () => {
    const result = await runBinAsync("onboard", ["--models-dir", fleet.dir, "--model", "cell-1", "--prune", "--stale-after", "30m"], { env: fleet.env });

    expect(result.status).toBe(2);
    expect(result.stderr).toContain("--stale-after must be at least 2h");
    expect(result.stderr).not.toMatch(STACK_TRACE_LINE);
  });
});
