/**
 * End to end: the real `bin/onboard` (compiled) as a child process against the fake
 * GitLab. Checks exit codes, and that no token reaches stdout, stderr or any file
 * other than the secret store. A process is started where one is the point (each exit code
 * once, the first run's output, two processes racing for a cell's lock); the other runs go
 * through the same command line and error handler in this process (runInProcess), as a
 * process costs ~0.3 CPU-s.
 */
import { execFile } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { stringify } from "yaml";
import { randomText, type FakeGitLab } from "../support/fake-gitlab";
import type { FakeModelSetup } from "../support/fake-gitlab-model";
import { useFakeGitLab } from "../support/fake-gitlab-setup";
import { runInProcess } from "../support/cli";
import { filesUnder, runnerChanges } from "./helpers";

const REPO = join(__dirname, "..", "..");
const BIN = join(REPO, "bin", "onboard");

const gitlab = useFakeGitLab();
let fake: FakeGitLab;
let setup: FakeModelSetup;
let modelFile: string;

// bin/onboard runs the command's bundle, which `npm test` builds before the suite runs (tsc alone does not write it).

beforeEach(() => {
  fake = gitlab.fake;
  setup = gitlab.setup;
  modelFile = join(setup.root, "cell-1.yaml");
  writeFileSync(modelFile, stringify(setup.model));
});

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

const onboardEnv = (env: NodeJS.ProcessEnv) => ({ PATH: process.env.PATH, ONBOARD_RETRY_TIMEOUT: "2s", ...env });

/** Runs bin/onboard without blocking the event loop (the fake GitLab lives in this process). */
function onboard(args: string[], env: NodeJS.ProcessEnv = { GITLAB_TOKEN: fake.adminToken }): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, "--model", modelFile, ...args], { cwd: setup.root, env: onboardEnv(env) }, (error, stdout, stderr) =>
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** The same run as `onboard`, in this process. */
async function onboardInProcess(args: string[], env: NodeJS.ProcessEnv = { GITLAB_TOKEN: fake.adminToken }): Promise<Run> {
  const { status, stdout, stderr } = await runInProcess("onboard", ["--model", modelFile, ...args], { cwd: setup.root, env: onboardEnv(env) });
  return { code: status, stdout, stderr };
}

function runnerTokens(): string[] {
  return [...fake.runners.values()].map((runner) => runner.token);
}

function expectNoSecretIn(run: Run, secrets: string[]) {
  for (const secret of secrets) {
    expect(run.stdout).not.toContain(secret);
    expect(run.stderr).not.toContain(secret);
  }
}

test("creates the runners and keeps every token out of the output and out of other files", async () => {
  const created = await onboard(["--json"]);

  expect(created.code).toBe(0);
  const report = JSON.parse(created.stdout);
  expect(report.shards.map((shard: { action: string }) => shard.action)).toEqual(["create", "create"]);
  const firstTokens = runnerTokens();
  expect(firstTokens).toHaveLength(2);

  const rotated = await onboardInProcess(["--rotate"]);
  expect(rotated.code).toBe(0);
  expect(rotated.stdout).toContain("rotated");
  // Each shard says what its managers do with the new token (cell-1's examples run gitlab-runner 19.5.0: live).
  expect(`${rotated.stdout}${rotated.stderr}`).toMatch(/shard small-amd64: token rotation live \(gitlab-runner 19\.5\.0 keeps its workers/);
  const allTokens = [...firstTokens, ...runnerTokens(), fake.adminToken];

  for (const run of [created, rotated]) expectNoSecretIn(run, allTokens);
  for (const { file, text } of filesUnder(setup.root)) {
    const holdsToken = allTokens.some((token) => text.includes(token));
    expect({ file, holdsToken }).toEqual({ file, holdsToken: file.startsWith(setup.secretsDir) });
  }
});

test("exits 0 and writes nothing on a second run; --status --require-online exits 1 with no manager online", async () => {
  await onboardInProcess([]);
  const writes = runnerChanges(fake.requests).length;

  const again = await onboardInProcess([]);
  const status = await onboard(["--status", "--require-online"]);

  expect(again.code).toBe(0);
  expect(runnerChanges(fake.requests)).toHaveLength(writes);
  expect(status.code).toBe(1);
  expect(status.stdout).toContain("0/0 online");
  expect(status.stderr + status.stdout).toContain("no online runner manager");
});

test("exits 2 naming the variable when the token is not set", async () => {
  const run = await onboard([], {});

  expect(run.code).toBe(2);
  expect(run.stderr).toContain("$GITLAB_TOKEN is not set");
  expect(fake.requests).toHaveLength(0);
});

test("exits 1 with a plain message, and no token, when GitLab rejects the token", async () => {
  const badToken = `glpat-${randomText(20)}`;

  const run = await onboardInProcess(["--json"], { GITLAB_TOKEN: badToken });

  expect(run.code).toBe(1);
  expect(run.stdout + run.stderr).toContain("rejected the token in $GITLAB_TOKEN");
  expectNoSecretIn(run, [badToken]);
});

test("exits 2 for a bad flag value", async () => {
  const run = await onboardInProcess(["--concurrency", "0"]);

  expect(run.code).toBe(2);
  expect(run.stderr).toContain("--concurrency");
});

test("two onboard processes on one cell at once make one runner per shard: the second waits for the lock", async () => {
  // Slow answers keep the first process busy while the second starts (at 30 ms the first could finish
  // before the second, started as slowly as a busy machine starts a node, reached the lock).
  fake.latencyMs = 100;

  const [first, second] = await Promise.all([onboard([]), onboard([])]);

  expect([first.code, second.code]).toEqual([0, 0]);
  expect(fake.requests.filter((request) => request.method === "POST" && request.path === "/api/v4/user/runners")).toHaveLength(2);
  expect(fake.runners.size).toBe(2);
  expect(first.stderr + second.stderr).toMatch(/another onboard holds the lock/);
  const stored = filesUnder(setup.secretsDir).map(({ text }) => JSON.parse(text) as { token: string; runnerId: number });
  expect(stored.map((entry) => entry.runnerId).sort()).toEqual([...fake.runners.keys()].sort());
  for (const entry of stored) expect(fake.tokenWorks(entry.token)).toBe(true);
});

test("a second process gives up after --lock-wait, naming the holder, with exit 1", async () => {
  fake.latencyMs = 500;

  const [first, second] = await Promise.all([onboard([]), new Promise<Run>((resolve) => setTimeout(() => resolve(onboard(["--lock-wait", "200ms"])), 1000))]);

  expect(first.code).toBe(0);
  expect(second.code).toBe(1);
  expect(second.stderr).toMatch(/another onboard holds the lock of cell cell-1 since \S+ \(pid \d+, host \S+, onboard\); gave up after waiting/);
  expect(fake.runners.size).toBe(2);
});

test("--dry-run prints the plan, as text and as JSON, and leaves GitLab, the store and the lock alone", async () => {
  const text = await onboardInProcess(["--dry-run"]);
  const json = await onboardInProcess(["--dry-run", "--json"]);

  expect([text.code, json.code]).toEqual([0, 0]);
  expect(text.stdout).toMatch(/small-amd64\s+would create: no runner carries the shard's marker\n\s+1\. create runner "[^"]+" \(instance_type\) and store its token in local file /);
  const report = JSON.parse(json.stdout);
  expect(report.plan.map((plan: { shard: string; steps: Array<{ kind: string }> }) => [plan.shard, plan.steps.map((step) => step.kind)])).toEqual([
    ["small-amd64", ["create-runner"]],
    ["large-amd64", ["create-runner"]],
  ]);
  expect(fake.writeCalls()).toEqual([]);
  expect(existsSync(setup.secretsDir)).toBe(false);
  expect(existsSync(join(setup.root, ".state"))).toBe(false);
});

test("--dry-run without a token shows each shard's intended runner, marked not yet checked, and its warning once", async () => {
  const text = await onboardInProcess(["--dry-run"], {});
  const json = await onboardInProcess(["--dry-run", "--json"], {});

  expect([text.code, json.code]).toEqual([0, 0]);
  expect(text.stdout).toMatch(/small-amd64\s+not checked: GitLab not queried\n\s+intended runner \(not yet checked against GitLab\): instance_type, description "[^"]+"\n\s+tags [^\n]+; run untagged: (yes|no); maximum timeout \d+s; (not_protected|ref_protected)[^\n]*\n\s+token would be stored in local file /);
  // Printed once: in the report on stdout, not again on stderr.
  const warning = "is not set: GitLab was not queried";
  expect((text.stdout + text.stderr).split(warning)).toHaveLength(2);
  const report = JSON.parse(json.stdout);
  expect(report.intended.map((wanted: { shard: string; checkedAgainstGitLab: boolean; runner: { runner_type: string; tag_list: string[] } }) => [wanted.shard, wanted.checkedAgainstGitLab, wanted.runner.runner_type, wanted.runner.tag_list])).toEqual([
    // The model's tags, then the cell's own (lib/model/cell-tag.ts).
    ["small-amd64", false, "instance_type", [...setup.model.shards[0].tags, "runner-fleet:cell-1"]],
    ["large-amd64", false, "instance_type", [...setup.model.shards[1].tags, "runner-fleet:cell-1"]],
  ]);
  expect(fake.writeCalls()).toEqual([]);
  expect(fake.requests).toHaveLength(0);
});
