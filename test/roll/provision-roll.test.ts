/**
 * A change that replaces runner managers, provisioned against the stand-in terraform in its
 * stateful mode (it plans the synthesized stack against its state file) and the fake GitLab:
 * the phases, their applies and the online checks between them, and the resume after a failure.
 * Every test starts from the fleet's first run (everything created), made once against a fake
 * GitLab of this file's own: each test gets a copy of what it left, the fake's runners and the
 * files (state, secrets, synthesized stack, the engine's call log), at the same paths.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runProvision } from "../../app/commands/provision";
import { runnerMarker } from "../../lib/gitlab/runner-spec";
import { loadModelFile } from "../../lib/model/load";
import type { RunnerModel } from "../../lib/model/schema";
import { FakeGitLab, type FakeManager, type FakeRunnersState } from "../support/fake-gitlab";
import { FAKE_ENGINE_SETTINGS_PASS, pathWithFakeEngines, type FakeCall, readFakeCalls } from "../support/fake-terraform-workspace";
import { MODELS_DIR } from "../support/models";

let fake: FakeGitLab;
let root: string;
let modelFile: string;
let callLog: string;
let stateFile: string;
let progress: string[];
/** Per `shard/slot`: the manager GitLab sees for that slot's VM. */
let slotManagers: Map<string, FakeManager>;

const SHARDS = ["small-amd64", "large-amd64"];

let firstRun: { runners: FakeRunnersState; files: string };
beforeAll(async () => {
  fake = new FakeGitLab();
  await fake.start();
  root = mkdtempSync(join(tmpdir(), "provision-roll-"));
  mkdirSync(join(root, "models"));
  modelFile = join(root, "models", "cell-1.yaml");
  callLog = join(root, "terraform-calls.jsonl");
  stateFile = join(root, "terraform-state.json");
  writeModel("19.5.0");
  progress = [];
  const first = await provision();
  expect(first.cells[0].outcome).toBe("applied");
  const files = mkdtempSync(join(tmpdir(), "provision-roll-first-run-"));
  cpSync(root, files, { recursive: true });
  firstRun = { runners: fake.saveRunners(), files };
});
afterAll(async () => {
  await fake.stop();
  for (const dir of [root, firstRun.files]) rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => {
  fake.restoreRunners(firstRun.runners);
  fake.requests.length = 0;
  rmSync(root, { recursive: true, force: true });
  cpSync(firstRun.files, root, { recursive: true });
  progress = [];
  slotManagers = new Map();
});

function writeModel(runnerVersion: string): void {
  const text = readFileSync(join(MODELS_DIR, "cell-1.yaml"), "utf8")
    .replace("https://cell-1.gitlab.example.com", fake.url)
    .replace(/state:\n(  .*\n)+/, "state:\n  backend: local\n")
    .replace("store: google-secret-manager", `store: local\n  local_dir: ${join(root, "secrets")}`)
    .replaceAll("runner_version: 19.5.0", `runner_version: ${runnerVersion}`);
  writeFileSync(modelFile, text);
}

/** The model as provision reads it; loaded again only after the test rewrote the file (runnerOf asks for it at every wait). */
let loaded: { text: string; model: RunnerModel } | undefined;
const model = (): RunnerModel => {
  const text = readFileSync(modelFile, "utf8");
  if (loaded?.text !== text) loaded = { text, model: loadModelFile(modelFile).model };
  return loaded.model;
};
const runnerOf = (shard: string) => [...fake.runners.values()].find((runner) => runner.maintenance_note.includes(runnerMarker(model(), model().shards.find((entry) => entry.name === shard)!)))!;
const engineCalls = (): FakeCall[] => readFakeCalls(callLog);
const managerSlots = (): Record<string, string> => JSON.parse(readFileSync(join(root, "cdktf.out", "stacks", "cell-1", "manager-slots.json"), "utf8"));

/** The manager slots each apply replaced (`shard/slot`), in apply order. */
function appliedSlots(calls: FakeCall[]): string[][] {
  const slots = managerSlots();
  return calls.filter((call) => call.applied).map((call) => call.applied!.filter((address) => slots[address]).map((address) => slots[address]).sort());
}

/** A VM booted for each slot: its manager contacts GitLab. */
function bootAllSlots(): void {
  for (const shard of SHARDS) for (const slot of [0, 1]) slotManagers.set(`${shard}/${slot}`, fake.addManager(runnerOf(shard).id, 0));
}

/**
 * What the clouds do after an apply that replaced slots: the old manager drains and stops (its last
 * contact ages), the new VM boots and its manager comes online. Runs while provision waits.
 */
function replaceAppliedSlots(alreadyReplaced: Set<string>): void {
  const slots = managerSlots();
  for (const call of engineCalls()) {
    for (const address of call.applied ?? []) {
      const key = slots[address];
      if (!key || alreadyReplaced.has(key)) continue;
      alreadyReplaced.add(key);
      slotManagers.get(key)!.contacted_at = new Date(Date.now() - 3 * 3600_000).toISOString();
      slotManagers.set(key, fake.addManager(runnerOf(key.split("/")[0]).id, 0));
    }
  }
}

function provision(extraEnv: Record<string, string> = {}) {
  const replaced = new Set<string>(appliedSlotsSoFar());
  let sleeps = 0;
  return runProvision({
    models: ["cell-1"],
    modelsDir: join(root, "models"),
    out: join(root, "cdktf.out"),
    mode: { kind: "apply", approval: "auto", onboard: true },
    env: {
      PATH: `${pathWithFakeEngines(["terraform"])}:/usr/bin:/bin`,
      HOME: root,
      GITLAB_TOKEN: fake.adminToken,
      FAKE_TF_LOG: callLog,
      FAKE_TF_STATE: stateFile,
      ...FAKE_ENGINE_SETTINGS_PASS,
      ...extraEnv,
    },
    log: (line) => progress.push(line),
    rollClock: {
      sleep: async () => {
        sleeps += 1;
        if (sleeps > 50) throw new Error("the roll waited too long");
        replaceAppliedSlots(replaced);
      },
      timing: { pollMs: 1 },
    },
  });
}

/** Slots replaced by earlier runs (so a new run's simulation does not replace them again). */
function appliedSlotsSoFar(): string[] {
  try {
    return appliedSlots(engineCalls()).flat();
  } catch {
    return [];
  }
}

/** After the first run (everything created, see beforeAll): every slot's VM boots. */
function bootFleet(): number {
  bootAllSlots();
  return engineCalls().length;
}

test("a runner version bump rolls one slot of each shard at a time, waiting for the new managers between waves", async () => {
  const before = bootFleet();
  expect(appliedSlots(engineCalls())).toEqual([[]]); // the first run creates, it replaces nothing
  writeModel("18.6.0");

  const result = await provision();

  expect(result.cells[0].outcome).toBe("applied");
  const calls = engineCalls().slice(before);
  // Full plan (what the person confirms), then per phase: plan, show, apply.
  expect(calls.filter((call) => call.argv).map((call) => call.argv!.find((arg) => !arg.startsWith("-"))).filter((step) => step !== "version")).toEqual([
    "init", "plan", "show",
    "plan", "show",
    "plan", "show", "apply",
    "plan", "show", "apply",
  ]);
  expect(appliedSlots(calls)).toEqual([
    ["large-amd64/0", "small-amd64/0"],
    ["large-amd64/1", "small-amd64/1"],
  ]);
  // The roll was named with the plan, before anything was applied.
  const named = progress.findIndex((line) => line.includes("roll: this change replaces 4 runner managers; provision applies it in 3 phases:"));
  const firstPhase = progress.findIndex((line) => line.includes("roll phase 1/3"));
  expect(named).toBeGreaterThan(-1);
  expect(firstPhase).toBeGreaterThan(named);
  expect(progress).toContainEqual(expect.stringContaining("phase 2: replace small-amd64 slot 0, large-amd64 slot 0"));
  expect(progress).toContainEqual("[cell-1] roll phase 2/3 (small-amd64 slot 0, large-amd64 slot 0): done, new managers online");
  // GitLab was asked about the managers after the first wave's apply and before the second wave's plan.
  const waveOneDone = progress.indexOf("[cell-1] roll phase 2/3 (small-amd64 slot 0, large-amd64 slot 0): done, new managers online");
  const waveTwoStart = progress.findIndex((line) => line.startsWith("[cell-1] roll phase 3/3"));
  expect(waveTwoStart).toBeGreaterThan(waveOneDone);
  const managerLookups = fake.requests.filter((request) => request.method === "GET" && /^\/api\/v4\/runners\/\d+\/managers$/.test(request.path));
  expect(managerLookups.length).toBeGreaterThanOrEqual(4 * 2);
  // The roll says what its lookups asked GitLab, once, when it ends.
  const said = progress.filter((line) => line.includes("manager lookup(s)"));
  expect(said).toHaveLength(1);
  expect(said[0]).toMatch(/^\[cell-1\] roll: \d+ manager lookup\(s\), \d+ GitLab requests, \S+ waiting for the request rate/);
  expect(Number(said[0].match(/, (\d+) GitLab requests/)![1])).toBeGreaterThanOrEqual(managerLookups.length);
  // Each shard now has one fresh manager per slot, none of them from before the bump.
  for (const shard of SHARDS) {
    const fresh = runnerOf(shard).managers.filter((manager) => Date.now() - Date.parse(manager.contacted_at!) < 60_000);
    expect(fresh.map((manager) => manager.system_id).sort()).toEqual([slotManagers.get(`${shard}/0`)!.system_id, slotManagers.get(`${shard}/1`)!.system_id].sort());
  }
});

test("a failed phase stops the roll; the next run continues with the slots not yet replaced", async () => {
  bootFleet();
  writeModel("18.6.0");

  // Apply 1 created the fleet; 2 is wave one (phase 1 has nothing to apply); 3, wave two, fails.
  await expect(provision({ FAKE_TF_FAIL_APPLY_NUMBER: "3" })).rejects.toThrow(
    /the roll of cell-1 stopped in phase 3\/3 \(small-amd64 slot 1, large-amd64 slot 1\): the apply failed [\s\S]*run provision again to continue/,
  );
  expect(appliedSlots(engineCalls())).toEqual([[], ["large-amd64/0", "small-amd64/0"]]);
  const before = engineCalls().length;
  progress = [];

  const resumed = await provision();

  expect(resumed.cells[0].outcome).toBe("applied");
  expect(progress).toContainEqual(expect.stringContaining("roll: this change replaces 2 runner managers; provision applies it in 2 phases:"));
  expect(progress).toContainEqual(expect.stringContaining("phase 2: replace small-amd64 slot 1, large-amd64 slot 1"));
  expect(appliedSlots(engineCalls().slice(before))).toEqual([["large-amd64/1", "small-amd64/1"]]);
});

test("a wave waits while a shard is missing a manager, and gives up without stopping another one", async () => {
  bootFleet();
  writeModel("18.6.0");
  // small-amd64 slot 1 is down for reasons of its own: its manager has not been heard from for hours.
  slotManagers.get("small-amd64/1")!.contacted_at = new Date(Date.now() - 3 * 3600_000).toISOString();
  let now = Date.now();

  const run = runProvision({
    models: ["cell-1"],
    modelsDir: join(root, "models"),
    out: join(root, "cdktf.out"),
    mode: { kind: "apply", approval: "auto", onboard: true },
    env: { PATH: `${pathWithFakeEngines(["terraform"])}:/usr/bin:/bin`, HOME: root, GITLAB_TOKEN: fake.adminToken, FAKE_TF_LOG: callLog, FAKE_TF_STATE: stateFile, ...FAKE_ENGINE_SETTINGS_PASS },
    log: (line) => progress.push(line),
    rollClock: { now: () => now, sleep: async (ms) => void (now += ms), timing: { pollMs: 60_000, bootMs: 5 * 60_000 } },
  });

  await expect(run).rejects.toThrow(/stopped in phase 2\/3 \(small-amd64 slot 0, large-amd64 slot 0\): small-amd64 has 1 of 2 managers online after 5 min/);
  expect(appliedSlots(engineCalls())).toEqual([[]]);
});
