/**
 * Several operators on one cell: runs at once, duplicates, a tag change with a lost
 * store, and tokens reset behind the tool's back. Against the fake GitLab.
 */
import { spawn } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, unlinkSync, utimesSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { formatOnboardReport, runOnboard, type OnboardOptions } from "../../app/commands/onboard";
import { desiredRunner, runnerMarker, maintenanceNote } from "../../lib/gitlab/runner-spec";
import { cellTag } from "../../lib/model/cell-tag";
import { runnerDescription, secretLocation } from "../../lib/model/names";
import type { Shard } from "../../lib/model/schema";
import { acquireCellLock, cellLockPath } from "../../lib/state/cell-lock";
import { REPO_ROOT } from "../support/cli";
import type { FakeGitLab, FakeRunner } from "../support/fake-gitlab";
import type { FakeModelSetup } from "../support/fake-gitlab-model";
import { useFakeGitLab } from "../support/fake-gitlab-setup";
import { fakeClock } from "./helpers";

const gitlab = useFakeGitLab();
let fake: FakeGitLab;
let setup: FakeModelSetup;
let progress: string[];

beforeEach(() => {
  fake = gitlab.fake;
  setup = gitlab.setup;
  progress = [];
});

const stateDir = () => join(setup.root, "state");

function onboard(options: Partial<OnboardOptions> = {}) {
  return runOnboard({ runnerModel: setup.model, env: setup.env, ...fakeClock(), log: (line) => progress.push(line), ...options });
}

function runnersOf(shard: Shard): FakeRunner[] {
  return [...fake.runners.values()].filter((runner) => runner.maintenance_note.includes(runnerMarker(setup.model, shard)));
}

function stored(shard: Shard): { token: string; runnerId: number } {
  return JSON.parse(readFileSync(join(setup.secretsDir, secretLocation(setup.model, shard).localFileName), "utf8"));
}

/** A runner carrying the shard's marker and the cell's tag, as another operator's run would leave it. */
function seedDuplicate(shard: Shard): FakeRunner {
  return fake.seedRunner({
    description: runnerDescription(setup.model, shard),
    maintenance_note: maintenanceNote(setup.model, shard),
    tag_list: [...desiredRunner(setup.model, shard).tag_list],
    run_untagged: shard.run_untagged,
  });
}

function expectOneRunnerPerShardWithItsTokenStored(): void {
  for (const shard of setup.model.shards) {
    const runners = runnersOf(shard);
    expect(runners).toHaveLength(1);
    expect(stored(shard).runnerId).toBe(runners[0].id);
    expect(fake.tokenWorks(stored(shard).token)).toBe(true);
  }
}

describe("two onboard runs on one cell at the same time", () => {
  test("make one runner per shard and keep every token: the second waits for the first's lock", async () => {
    // Slow answers make the two runs overlap for their whole length.
    fake.latencyMs = 40;

    const [first, second] = await Promise.all([onboard(), onboard()]);

    expect([first.exitCode, second.exitCode]).toEqual([0, 0]);
    expect(fake.requests.filter((request) => request.method === "POST" && request.path === "/api/v4/user/runners")).toHaveLength(2);
    expect(fake.runners.size).toBe(2);
    expectOneRunnerPerShardWithItsTokenStored();
    expect(progress.some((line) => line.startsWith("another onboard holds the lock"))).toBe(true);
    // The lock is gone afterwards.
    expect(existsSync(cellLockPath(stateDir(), setup.model.cell.id))).toBe(false);
  });

  test("fails after a bounded wait, naming who holds the lock since when, and changes nothing", async () => {
    const held = await acquireCellLock({ stateDir: stateDir(), cell: setup.model.cell.id, command: "onboard" });
    try {
      const error = (await onboard({ lockWait: "300ms" }).catch((caught: unknown) => caught)) as Error;

      expect(error).toBeInstanceOf(Error);
      expect((error as Error & { exitCode?: number }).exitCode).toBe(1);
      expect(error.message).toMatch(new RegExp(`another onboard holds the lock of cell cell-1 since \\d{4}-\\d\\d-\\d\\dT[^ ]+ \\(pid ${process.pid}, host ${hostname()}, onboard\\)`));
      expect(fake.requests).toEqual([]);
    } finally {
      await held.release();
    }
  });

  test("a lock left by a killed process is taken over once stale", async () => {
    const lockModule = join(REPO_ROOT, "dist", "lib", "state", "cell-lock.js");
    const holder = spawn(process.execPath, [
      "-e",
      `require(${JSON.stringify(lockModule)}).acquireCellLock({ stateDir: ${JSON.stringify(stateDir())}, cell: "cell-1", command: "onboard", staleMs: 2000 }).then(() => { console.log("held"); setInterval(() => {}, 1000); });`,
    ]);
    await new Promise<void>((resolve) => holder.stdout.once("data", () => resolve()));
    holder.kill("SIGKILL");
    await new Promise((resolve) => holder.once("close", resolve));
    expect(existsSync(cellLockPath(stateDir(), "cell-1"))).toBe(true);

    const started = Date.now();
    const result = await onboard({ lockWait: "20s", lockStaleMs: 2000 });

    expect(result.exitCode).toBe(0);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(progress.some((line) => line.includes(`pid ${holder.pid}`))).toBe(true);
    expect(progress).toContainEqual(expect.stringMatching(new RegExp(`^warning: took over the onboard lock of cell cell-1 left by pid ${holder.pid} on host ${hostname()} \\(onboard, since [^)]+\\): that run stopped without releasing it`)));
    expectOneRunnerPerShardWithItsTokenStored();
  }, 30_000);

  test("an old lock directory with no living holder does not block", async () => {
    const path = cellLockPath(stateDir(), "cell-1");
    mkdirSync(path, { recursive: true });
    writeFileSync(`${path}.owner.json`, JSON.stringify({ pid: 999999, host: "gone", since: "2020-01-01T00:00:00.000Z", command: "onboard" }));
    const longAgo = new Date(Date.now() - 3600_000);
    utimesSync(path, longAgo, longAgo);

    const result = await onboard({ lockWait: "1s" });

    expect(result.exitCode).toBe(0);
    expect(progress).toContainEqual(expect.stringContaining("took over the onboard lock of cell cell-1 left by pid 999999 on host gone (onboard, since 2020-01-01T00:00:00.000Z)"));
    expectOneRunnerPerShardWithItsTokenStored();
  });

  test("a dry run takes no lock", async () => {
    const held = await acquireCellLock({ stateDir: stateDir(), cell: setup.model.cell.id, command: "onboard" });
    try {
      const result = await onboard({ dryRun: true, lockWait: "100ms" });
      expect(result.exitCode).toBe(0);
    } finally {
      await held.release();
    }
  });
});

describe("duplicates", () => {
  test("a run on another machine creating at the same moment: the oldest runner is kept, the other deleted, its token stored", async () => {
    const shard = setup.model.shards[0];
    let theirs: FakeRunner | undefined;
    // Just before our create lands, another machine's run creates the shard's runner.
    fake.beforeCreate = () => {
      if (!theirs) theirs = seedDuplicate(shard);
    };

    const result = await onboard({ shards: [shard.name] });

    expect(result.exitCode).toBe(0);
    const [runner, ...others] = runnersOf(shard);
    expect(others).toEqual([]);
    expect(runner.id).toBe(theirs!.id);
    expect(stored(shard)).toMatchObject({ runnerId: theirs!.id });
    expect(fake.tokenWorks(stored(shard).token)).toBe(true);
    expect(result.shards[0].runnerId).toBe(theirs!.id);
    expect(result.shards[0].duplicates).toEqual([theirs!.id + 1]);
    expect(result.shards[0].notes.join("\n")).toMatch(/created for this shard at the same time; #\d+ is kept/);
  });

  test("a later run deletes duplicates it finds and keeps the runner whose token is stored", async () => {
    await onboard();
    const shard = setup.model.shards[1];
    const ours = stored(shard);
    const extra = [seedDuplicate(shard), seedDuplicate(shard)];

    const result = await onboard();

    expect(result.exitCode).toBe(0);
    expectOneRunnerPerShardWithItsTokenStored();
    expect(stored(shard)).toMatchObject(ours);
    const outcome = result.shards.find((entry) => entry.shard === shard.name)!;
    expect(outcome.duplicates).toEqual(extra.map((runner) => runner.id));
    expect(outcome.notes.join("\n")).toContain("they are deleted");
  });

  test("a dry run reports duplicates and deletes nothing", async () => {
    await onboard();
    const shard = setup.model.shards[0];
    const extra = seedDuplicate(shard);

    const result = await onboard({ dryRun: true });

    expect(runnersOf(shard)).toHaveLength(2);
    expect(result.shards[0].duplicates).toEqual([extra.id]);
    expect(result.shards[0].notes.join("\n")).toContain("they would be deleted");
  });

  test("--remove deletes every runner carrying the marker", async () => {
    await onboard();
    for (const shard of setup.model.shards) seedDuplicate(shard);

    const result = await onboard({ remove: true });

    expect(result.exitCode).toBe(0);
    expect(fake.runners.size).toBe(0);
  });
});

describe("tag change with a lost store", () => {
  test("finds the runner by its marker alone, updates its tags, and creates no second runner", async () => {
    await onboard();
    const shard = setup.model.shards[0];
    const [original] = runnersOf(shard);
    unlinkSync(join(setup.secretsDir, secretLocation(setup.model, shard).localFileName));
    const changed = { ...setup.model, shards: setup.model.shards.map((entry) => (entry.name === shard.name ? { ...entry, tags: ["brand-new-tag"] } : entry)) };

    const result = await onboard({ runnerModel: changed });

    expect(result.exitCode).toBe(0);
    expect(runnersOf(shard).map((runner) => runner.id)).toEqual([original.id]);
    expect(original.tag_list).toEqual(["brand-new-tag", cellTag(setup.model)]);
    expect(result.shards[0]).toMatchObject({ action: "adopt", runnerId: original.id });
    expect(stored(shard).runnerId).toBe(original.id);
    expect(fake.tokenWorks(stored(shard).token)).toBe(true);
  });
});

describe("token validity", () => {
  /** Resets a runner's token the way someone in the admin area would. */
  async function resetBehindTheToolsBack(runnerId: number): Promise<void> {
    const response = await fetch(`${fake.url}/api/v4/runners/${runnerId}/reset_authentication_token`, { method: "POST", headers: { "private-token": fake.adminToken } });
    expect(response.status).toBe(201);
  }

  test("onboard repairs a token reset behind its back by resetting it again, never with a second runner", async () => {
    await onboard();
    const shard = setup.model.shards[0];
    const before = stored(shard);
    await resetBehindTheToolsBack(before.runnerId);
    expect(fake.tokenWorks(before.token)).toBe(false);

    const result = await onboard();

    expect(result.exitCode).toBe(0);
    const outcome = result.shards.find((entry) => entry.shard === shard.name)!;
    expect(outcome).toMatchObject({ action: "adopt", runnerId: before.runnerId, tokenStored: true });
    expect(outcome.reason).toContain("no longer works");
    expect(fake.runners.size).toBe(2);
    expectOneRunnerPerShardWithItsTokenStored();
    // The check leaves no manager behind.
    for (const runner of fake.runners.values()) expect(runner.managers).toEqual([]);
  });

  test("an expired stored token is repaired the same way", async () => {
    await onboard();
    const shard = setup.model.shards[1];
    const runner = fake.runners.get(stored(shard).runnerId)!;
    runner.token_expires_at = new Date(Date.now() - 60_000).toISOString();

    const result = await onboard();

    expect(result.shards.find((entry) => entry.shard === shard.name)).toMatchObject({ action: "adopt", runnerId: runner.id });
    expect(fake.runners.size).toBe(2);
  });

  test("--status shows a refused token as invalid, not stored; --require-online then exits 1", async () => {
    await onboard();
    const shard = setup.model.shards[0];
    await resetBehindTheToolsBack(stored(shard).runnerId);
    for (const runner of fake.runners.values()) fake.addManager(runner.id, 60_000);

    const status = await onboard({ status: true });
    const strict = await onboard({ status: true, requireOnline: true });

    const entry = status.status!.find((item) => item.shard === shard.name)!;
    expect(entry.tokenCheck).toMatchObject({ valid: false });
    expect(entry.tokenProblem).toContain("no longer works");
    expect(formatOnboardReport(status)).toMatch(new RegExp(`${shard.name}\\s+#${entry.runnerId}\\s+\\S+\\s+1/1 online\\s+invalid`));
    expect(status.status!.find((item) => item.shard !== shard.name)).toMatchObject({ tokenStored: true, tokenCheck: { valid: true, matchesRunner: true } });
    expect(status.exitCode).toBe(0);
    expect(status.notices.join("\n")).toContain(`shard ${shard.name}: the stored token of runner #${entry.runnerId} no longer works`);
    expect(strict.exitCode).toBe(1);
    expect(strict.problems.join("\n")).toContain(`shard ${shard.name}: the stored token of runner #${entry.runnerId} no longer works`);
    // Managers listed are the real ones: the token check left none.
    for (const runner of fake.runners.values()) expect(runner.managers).toHaveLength(1);
  });
});

describe("secrets.local_dir", () => {
  test("fails on a directory others can write to before any runner is created, leaving its mode unchanged", async () => {
    mkdirSync(setup.secretsDir, { recursive: true });
    chmodSync(setup.secretsDir, 0o1777);

    await expect(onboard()).rejects.toMatchObject({ exitCode: 1, message: expect.stringContaining("is writable by everyone (mode 1777)") });

    expect(fake.runners.size).toBe(0);
    expect(fake.writeCalls()).toEqual([]);
    expect(statSync(setup.secretsDir).mode & 0o7777).toBe(0o1777);
  });
});
