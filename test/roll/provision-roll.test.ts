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
  vms = new Map();
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
  vms = new Map();
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

/** The state the stand-in terraform keeps: each template's ID (test/support/fake-terraform.js). */
const templateIds = (): Record<string, string> => JSON.parse(readFileSync(stateFile, "utf8")).ids ?? {};

/** Slot -> the address of its current template. */
function templateAddresses(): Map<string, string> {
  return new Map(Object.entries(managerSlots()).map(([address, key]) => [key, address]));
}

/**
 * The manager slots each apply replaced (`shard/slot`), in apply order: a slot whose template was changed,
 * or made anew at its address (a wave moves the old one aside), by any apply but the fleet's first.
 */
function appliedSlots(calls: FakeCall[]): string[][] {
  const slots = managerSlots();
  const firstApply = JSON.stringify(engineCalls().find((call) => call.applied));
  return calls
    .filter((call) => call.applied)
    .map((call) => [...call.applied!, ...(JSON.stringify(call) === firstApply ? [] : (call.created ?? []))].filter((address) => slots[address]).map((address) => slots[address]).sort());
}

/**
 * The cloud's side (Google Cloud): per slot, the VM, the template it runs from and its manager. The stand-in
 * terraform reads which templates VMs run from (FAKE_GCE_IN_USE) and refuses to delete those, as the Compute
 * API does.
 */
let vms: Map<string, { templateId: string; manager: FakeManager }>;
const inUseFile = () => join(root, "gce-vms.json");

function writeVms(): void {
  writeFileSync(inUseFile(), JSON.stringify(Object.fromEntries([...vms].map(([key, vm]) => [`vm-${key.replace("/", "-")}`, vm.templateId]))));
}

/** A VM booted for each slot from its current template: its manager contacts GitLab. */
function bootAllSlots(): void {
  const ids = templateIds();
  for (const [key, address] of templateAddresses()) vms.set(key, { templateId: ids[address], manager: fake.addManager(runnerOf(key.split("/")[0]).id, 0) });
  writeVms();
}

/**
 * What Google Cloud does after an apply pointed a slot's group at a new template (OPPORTUNISTIC): the
 * old manager drains and stops (its last contact ages), the group recreates the VM from the new template,
 * and its manager comes online. Runs while provision waits.
 */
function replaceAppliedSlots(): void {
  const ids = templateIds();
  for (const [key, address] of templateAddresses()) {
    const vm = vms.get(key);
    if (!vm || !ids[address] || vm.templateId === ids[address]) continue;
    vm.manager.contacted_at = new Date(Date.now() - 3 * 3600_000).toISOString();
    vms.set(key, { templateId: ids[address], manager: fake.addManager(runnerOf(key.split("/")[0]).id, 0) });
  }
  writeVms();
}

function provision(extraEnv: Record<string, string> = {}) {
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
      FAKE_GCE_IN_USE: inUseFile(),
      ...FAKE_ENGINE_SETTINGS_PASS,
      ...extraEnv,
    },
    log: (line) => progress.push(line),
    rollClock: {
      sleep: async () => {
        sleeps += 1;
        if (sleeps > 50) throw new Error("the roll waited too long");
        replaceAppliedSlots();
      },
      timing: { pollMs: 1 },
    },
  });
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
    "plan", "show", "apply",
  ]);
  expect(appliedSlots(calls)).toEqual([
    ["large-amd64/0", "small-amd64/0"],
    ["large-amd64/1", "small-amd64/1"],
    [],
  ]);
  // The roll was named with the plan, before anything was applied.
  const named = progress.findIndex((line) => line.includes("roll: this change replaces 4 runner managers; provision applies it in 4 phases:"));
  const firstPhase = progress.findIndex((line) => line.includes("roll phase 1/4"));
  expect(named).toBeGreaterThan(-1);
  expect(firstPhase).toBeGreaterThan(named);
  expect(progress).toContainEqual(expect.stringContaining("phase 2: replace small-amd64 slot 0, large-amd64 slot 0"));
  expect(progress).toContainEqual("[cell-1] roll phase 2/4 (small-amd64 slot 0, large-amd64 slot 0): done, new managers online");
  // GitLab was asked about the managers after the first wave's apply and before the second wave's plan.
  const waveOneDone = progress.indexOf("[cell-1] roll phase 2/4 (small-amd64 slot 0, large-amd64 slot 0): done, new managers online");
  const waveTwoStart = progress.findIndex((line) => line.startsWith("[cell-1] roll phase 3/4"));
  expect(waveTwoStart).toBeGreaterThan(waveOneDone);
  const managerLookups = fake.requests.filter((request) => request.method === "GET" && /^\/api\/v4\/runners\/\d+\/managers$/.test(request.path));
  expect(managerLookups.length).toBeGreaterThanOrEqual(4 * 2);
  // The roll says what its lookups asked GitLab, once, when it ends.
  const said = progress.filter((line) => line.includes("manager lookup(s)"));
  expect(said).toHaveLength(1);
  expect(said[0]).toMatch(/^\[cell-1\] roll: \d+ manager lookup\(s\), \d+ GitLab requests, \S+ waiting for the request rate/);
  expect(Number(said[0].match(/, (\d+) GitLab requests/)![1])).toBeGreaterThanOrEqual(managerLookups.length);
  // Each wave kept its slots' old templates (the draining VMs ran from them; the stand-in refuses deleting
  // those): wave two's apply deleted wave one's, and the last phase wave two's.
  const previousDeleted = calls.filter((call) => call.applied).map((call) => call.applied!.filter((address) => address.endsWith("_previous")).length);
  expect(previousDeleted).toEqual([0, 2, 2]);
  expect(Object.keys(templateIds()).filter((address) => address.endsWith("_previous"))).toEqual([]);
  expect(progress).toContainEqual("[cell-1] roll phase 4/4 (the previous instance templates): deleting the templates the replaced VMs ran from");
  // Each shard now has one fresh manager per slot, none of them from before the bump.
  for (const shard of SHARDS) {
    const fresh = runnerOf(shard).managers.filter((manager) => Date.now() - Date.parse(manager.contacted_at!) < 60_000);
    expect(fresh.map((manager) => manager.system_id).sort()).toEqual([vms.get(`${shard}/0`)!.manager.system_id, vms.get(`${shard}/1`)!.manager.system_id].sort());
  }
});

test("a failed phase stops the roll; the next run continues with the slots not yet replaced", async () => {
  bootFleet();
  writeModel("18.6.0");

  // Apply 1 created the fleet; 2 is wave one (phase 1 has nothing to apply); 3, wave two, fails.
  await expect(provision({ FAKE_TF_FAIL_APPLY_NUMBER: "3" })).rejects.toThrow(
    /the roll of cell-1 stopped in phase 3\/4 \(small-amd64 slot 1, large-amd64 slot 1\): the apply failed [\s\S]*run provision again to continue/,
  );
  expect(appliedSlots(engineCalls())).toEqual([[], ["large-amd64/0", "small-amd64/0"]]);
  const before = engineCalls().length;
  progress = [];

  const resumed = await provision();

  expect(resumed.cells[0].outcome).toBe("applied");
  expect(progress).toContainEqual(expect.stringContaining("roll: this change replaces 2 runner managers; provision applies it in 3 phases:"));
  expect(progress).toContainEqual(expect.stringContaining("phase 2: replace small-amd64 slot 1, large-amd64 slot 1"));
  // Wave one's previous templates were kept through the resumed roll and deleted at its end.
  expect(appliedSlots(engineCalls().slice(before))).toEqual([["large-amd64/1", "small-amd64/1"], []]);
  expect(Object.keys(templateIds()).filter((address) => address.endsWith("_previous"))).toEqual([]);
});

test("a wave waits while a shard is missing a manager, and gives up without stopping another one", async () => {
  bootFleet();
  writeModel("18.6.0");
  // small-amd64 slot 1 is down for reasons of its own: its manager has not been heard from for hours.
  vms.get("small-amd64/1")!.manager.contacted_at = new Date(Date.now() - 3 * 3600_000).toISOString();
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

  await expect(run).rejects.toThrow(/stopped in phase 2\/4 \(small-amd64 slot 0, large-amd64 slot 0\): small-amd64 has 1 of 2 managers online after 5 min/);
  expect(appliedSlots(engineCalls())).toEqual([[]]);
});
