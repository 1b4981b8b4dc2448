/**
 * `onboard` over several cells in one run (--model repeated, or --all): cells run
 * --cell-concurrency at a time, against one GitLab or several, and the output stays per
 * cell: stderr holds one block of progress per cell, stdout each cell's report whole, in
 * the order given, then one line for the run with its requests and waiting. `status`
 * likewise over cells on two GitLabs.
 */
import { copyFileSync } from "node:fs";
import { join } from "node:path";
import { FakeGitLab } from "../support/fake-gitlab";
import { writeFleet, type FleetSetup } from "../support/fleet-models";
import { useFakeGitLab } from "../support/fake-gitlab-setup";
import { runInProcess, STACK_TRACE_LINE } from "../support/cli";
import type { OnboardCellsResult } from "../../app/commands/onboard";
import { acquireCellLock } from "../../lib/state/cell-lock";

const gitlab = useFakeGitLab();
/** A second GitLab, for cell-2. */
let other: FakeGitLab;
let fleet: FleetSetup;
let env: NodeJS.ProcessEnv;
let shardsOf: Record<string, number>;

beforeEach(async () => {
  other = new FakeGitLab();
  await other.start();
  fleet = writeFleet(gitlab.fake, [
    { id: "cell-1", from: "cell-1" },
    { id: "cell-10", from: "cell-1" },
  ]);
  // cell-2 on the other GitLab, with its own token variable, in the same models directory.
  const elsewhere = writeFleet(other, [{ id: "cell-2", from: "cell-2", edit: (text) => text.replace(/^(  url: .*)$/m, "$1\n  token_env: GITLAB_TOKEN_B") }]);
  copyFileSync(elsewhere.fileOf("cell-2"), join(fleet.dir, "cell-2.yaml"));
  shardsOf = Object.fromEntries(Object.values({ ...fleet.models, ...elsewhere.models }).map((model) => [model.cell.id, model.shards.length]));
  env = { ...fleet.env, GITLAB_TOKEN_B: other.adminToken, RUNNER_FLEET_STATE_DIR: join(fleet.dir, "..", "state") };
});

afterEach(async () => {
  await other.stop();
});

const onboard = (args: readonly string[]) => runInProcess("onboard", ["--models-dir", fleet.dir, ...args], { env });

/** Which GitLab answered each request, in the order they arrived. */
function arrivals(): string[] {
  const order: string[] = [];
  for (const [name, fake] of [["cell-1's", gitlab.fake], ["cell-2's", other]] as const) {
    const push = fake.requests.push.bind(fake.requests);
    fake.requests.push = (...items) => {
      order.push(...items.map(() => name));
      return push(...items);
    };
  }
  return order;
}

test("--all onboards every cell, each reported whole in the models' order, then one line for the run", async () => {
  const result = await onboard(["--all"]);

  expect(result.status).toBe(0);
  const blocks = result.stdout.split(/^== /m).slice(1);
  expect(blocks.map((block) => block.split(" ")[0])).toEqual(["cell-1", "cell-10", "cell-2"]);
  for (const block of blocks) {
    const cell = block.split(" ")[0];
    expect(block).toContain(`cell ${cell} on `);
    // Only its own shards: every shard line names an action of this cell's runners.
    expect(block.match(/created runner #\d+/g)).toHaveLength(shardsOf[cell]);
  }
  const total = gitlab.fake.requests.length + other.requests.length;
  // Under the default rate's burst: no wait.
  expect(result.stdout.trimEnd().split("\n").pop()).toBe(`3 cell(s) ok; in all ${total} GitLab requests, 0ms waiting for the request rate`);
  // Progress: one block per cell, headed by it, holding only its own lines.
  const progress = result.stderr.split(/^== cell /m).slice(1);
  expect(progress.map((block) => block.split("\n")[0]).sort()).toEqual(["cell-1", "cell-10", "cell-2"]);
  for (const block of progress) {
    const [cell, ...lines] = block.trimEnd().split("\n");
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.every((line) => line.startsWith(`${cell}/`))).toBe(true);
  }
});

test("--model repeated with --json: the cells in the order named, and the run's requests over both GitLabs", async () => {
  const result = await onboard(["--model", "cell-2", "--model", "cell-1", "--json"]);

  expect(result.status).toBe(0);
  const report = JSON.parse(result.stdout) as OnboardCellsResult;
  expect(report.cells.map((cell) => [cell.cell, cell.model])).toEqual([
    ["cell-2", join(fleet.dir, "cell-2.yaml")],
    ["cell-1", join(fleet.dir, "cell-1.yaml")],
  ]);
  expect(report.cells.map((cell) => cell.gitlabUrl)).toEqual([other.url, gitlab.fake.url]);
  expect(report.requests.requests).toBe(gitlab.fake.requests.length + other.requests.length);
  expect(report.cells.map((cell) => cell.requests!.requests)).toEqual([other.requests.length, gitlab.fake.requests.length]);
});

test("cells on two GitLabs run at once with --cell-concurrency 2, one after the other with 1", async () => {
  gitlab.fake.latencyMs = 15;
  other.latencyMs = 15;
  const together = arrivals();
  expect((await onboard(["--model", "cell-1", "--model", "cell-2", "--status", "--cell-concurrency", "2"])).status).toBe(0);
  // cell-2's GitLab was asked before cell-1's had its last answer.
  expect(together.indexOf("cell-2's")).toBeLessThan(together.lastIndexOf("cell-1's"));

  gitlab.fake.requests.length = 0;
  other.requests.length = 0;
  const inTurn = arrivals();
  expect((await onboard(["--model", "cell-1", "--model", "cell-2", "--status", "--cell-concurrency", "1"])).status).toBe(0);
  expect(inTurn.indexOf("cell-2's")).toBeGreaterThan(inTurn.lastIndexOf("cell-1's"));
});

test("status over cells on two GitLabs: checked at once, each cell reported whole in the models' order, the requests of both counted", async () => {
  expect((await onboard(["--all"])).status).toBe(0);
  gitlab.fake.requests.length = 0;
  other.requests.length = 0;
  gitlab.fake.latencyMs = 15;
  other.latencyMs = 15;
  const order = arrivals();

  const result = await runInProcess("status", ["--models-dir", fleet.dir, "--cell-concurrency", "3", "--json"], { env });

  // No VM runs here: every shard needs attention for its managers (exit 1); what matters is who was asked, when.
  expect(result.status).toBe(1);
  const report = JSON.parse(result.stdout) as { cells: Array<{ cell: string; shards: Array<{ runnerId?: number }> }>; requests: { requests: number } };
  expect(report.cells.map((cell) => cell.cell)).toEqual(["cell-1", "cell-10", "cell-2"]);
  expect(report.cells.every((cell) => cell.shards.every((shard) => shard.runnerId !== undefined))).toBe(true);
  expect(report.requests.requests).toBe(gitlab.fake.requests.length + other.requests.length);
  expect(order.indexOf("cell-2's")).toBeLessThan(order.lastIndexOf("cell-1's"));
});

test("one cell failing fails the run (exit 1) and the others are still onboarded", async () => {
  env = { ...env, GITLAB_TOKEN_B: "glpat-not-known-there" };

  const result = await onboard(["--all"]);

  expect(result.status).toBe(1);
  expect(result.stdout).toMatch(/^1 of 3 cell\(s\) failed: cell-2; in all \d+ GitLab requests/m);
  expect([...gitlab.fake.runners.values()]).toHaveLength(shardsOf["cell-1"] + shardsOf["cell-10"]);
  expect(other.runners.size).toBe(0);
});

test("a cell whose lock another run holds fails alone (exit 1): the other cells are onboarded and reported", async () => {
  const held = await acquireCellLock({ stateDir: env.RUNNER_FLEET_STATE_DIR!, cell: "cell-10", command: "onboard" });
  try {
    const result = await onboard(["--all", "--lock-wait", "200ms"]);

    expect(result.status).toBe(1);
    expect(result.stdout).toMatch(/^1 of 3 cell\(s\) failed: cell-10; /m);
    expect(result.stdout).toMatch(/^error: another onboard holds the lock of cell cell-10 since /m);
    expect([...gitlab.fake.runners.values()]).toHaveLength(shardsOf["cell-1"]);
    expect(other.runners.size).toBe(shardsOf["cell-2"]);
  } finally {
    await held.release();
  }
});

test("fails with exit 2 before any request when a cell's token variable is not set, naming it", async () => {
  delete env.GITLAB_TOKEN_B;

  const result = await onboard(["--all"]);

  expect(result.status).toBe(2);
  expect(result.stderr).toContain("$GITLAB_TOKEN_B (cell cell-2) not set");
  expect(gitlab.fake.requests.length + other.requests.length).toBe(0);
  // A dry run needs none: it says what it would ask.
  expect((await onboard(["--all", "--dry-run"])).status).toBe(0);
});

test.each([
  [["--model", "cell-1", "--model", "cell-2", "--shard", "small-amd64"], "--shard goes with one --model"],
  [["--all", "--cell-concurrency", "0"], '--cell-concurrency must be a whole number from 1 to 64, received "0"'],
  [["--all", "--model", "cell-1"], "leave out --model, or leave out --all"],
  [["--all", "--stale-after", "7d"], "--stale-after goes with --prune"],
  [[], "--model is required"],
])("fails with exit 2 before any request: onboard %j", async (args, message) => {
  const result = await onboard(args);

  expect(result.status).toBe(2);
  expect(result.stderr).toContain(message);
  expect(result.stderr).not.toMatch(STACK_TRACE_LINE);
  expect(gitlab.fake.requests.length + other.requests.length).toBe(0);
});
