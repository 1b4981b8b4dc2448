/**
 * The request budget of every command that looks runners up, pinned as exact counts
 * (they do not depend on the machine): a cell whose shards all share one tag, on an
 * instance with 100 runners of other teams (ten listing pages; every tenth also carries the
 * shared tag). Each budget is a constant per shard plus listing pages; measured at two sizes
 * (4 and 11 shards, one and two pages of the cell's own listing: 11 is the fewest that need a
 * second page, and each shard more costs its requests in every test), the difference is that
 * constant times the extra shards, so it stays linear. The instance's other runners cost
 * listing pages where a command lists every runner (a first run, prune), never reads: every
 * runner of the cell carries the cell's tag (lib/model/cell-tag.ts), and listings filter by it.
 *
 * The stand-in pages its runner listings in tens (FakeGitLab.maxRunnersPerPage), where GitLab pages in
 * hundreds: the client asks for 100 a page as always and follows the pages GitLab's headers announce,
 * so the counts are those of ten times the runners and shards, for a tenth of the requests (the 101
 * shards and 1000 runners this file used before cost ~2,000 requests over HTTP, the suite's costliest file).
 */
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { formatOnboardReport, runOnboard, type OnboardOptions } from "../../app/commands/onboard";
import { runOnboardCells } from "../../app/commands/onboard";
import { runStatus } from "../../app/commands/status";
import type { RunnerModel } from "../../lib/model/schema";
import { FakeGitLab, type FakeRunnersState } from "../support/fake-gitlab";
import { useFakeGitLab } from "../support/fake-gitlab-setup";
import { scaledEnv, scaledModel, seedUnrelatedRunners } from "../support/scaled-model";
import { fakeClock } from "./helpers";

const gitlab = useFakeGitLab();
const UNRELATED = 100;
/** Runners on a page of the stand-in's listings (see above). */
const PAGE = 10;
const pages = (runners: number) => Math.max(1, Math.ceil(runners / PAGE));

let fake: FakeGitLab;
let model: RunnerModel;
let env: NodeJS.ProcessEnv;
// Removed after each test (the suite's $TMPDIR is in memory, test/support/memory-tmpdir.js).
const roots: string[] = [];
const scratch = () => {
  const root = mkdtempSync(join(tmpdir(), "budget-"));
  roots.push(root);
  return root;
};
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

function cellOf(shards: number, on: FakeGitLab = gitlab.fake, root = scratch()): void {
  fake = on;
  fake.maxRunnersPerPage = PAGE;
  model = scaledModel({ cellId: "cell-7", gitlabUrl: fake.url, shards, secretsDir: join(root, "secrets") });
  env = scaledEnv(model, fake.adminToken, join(root, "state"));
  seedUnrelatedRunners(fake, UNRELATED);
}

/** Requests the fake saw during `run`, and what the run itself counted. */
async function measure<T extends { requests?: { requests: number } }>(run: () => Promise<T>): Promise<{ sent: number; result: T }> {
  const before = fake.requests.length;
  const result = await run();
  const sent = fake.requests.length - before;
  // The run's own count is the fake's: what it prints is what GitLab saw.
  expect(result.requests?.requests).toBe(sent);
  return { sent, result };
}

/** Runner details read (GET /runners/:id) among the last `sent` requests. */
const detailReads = (sent: number) => fake.requests.slice(-sent).filter((request) => /^\/api\/v4\/runners\/\d+$/.test(request.path) && request.method === "GET").length;

const onboard = (options: Partial<OnboardOptions> = {}) => measure(() => runOnboard({ runnerModel: model, env, ...fakeClock(), log: () => {}, ...options }));

describe.each([4, 11])(`a cell of %i shards sharing one tag, next to ${UNRELATED} unrelated runners`, (shards) => {
  const ours = () => shards;

  test("first run: the cell's tagged listing, the instance's listing (runners from before the tag), one create per shard, the tagged listing again to settle", async () => {
    cellOf(shards);
    const { sent, result } = await onboard();

    expect(result.exitCode).toBe(0);
    expect(sent).toBe(1 + pages(UNRELATED) + ours() + pages(ours()));
    // None of the unrelated runners sharing the shards' tag was read.
    expect(detailReads(sent)).toBe(0);
    // Each listing asked for GitLab's largest page (100), then followed the next-page links of the smaller pages the stand-in gave.
    const listings = fake.requests.slice(-sent).filter((request) => request.method === "GET" && request.path === "/api/v4/runners/all");
    const firstPages = listings.filter((request) => (new URLSearchParams(request.query).get("page") ?? "1") === "1");
    expect(firstPages.length).toBe(3);
    expect(firstPages.map((request) => new URLSearchParams(request.query).get("per_page"))).toEqual(["100", "100", "100"]);
    expect(listings.length).toBe(1 + pages(UNRELATED) + pages(ours()));
  });

  describe("after the first run", () => {
    // The first run (its cost is the test above) is made once, on a fake of its own: each test
    // starts from a copy of what it left, the fake's runners and the secret and state files.
    let firstRun: { fake: FakeGitLab; runners: FakeRunnersState; root: string; files: string; model: RunnerModel; env: NodeJS.ProcessEnv };
    beforeAll(async () => {
      const own = new FakeGitLab();
      await own.start();
      const root = mkdtempSync(join(tmpdir(), "budget-first-run-"));
      cellOf(shards, own, root);
      await onboard();
      const files = mkdtempSync(join(tmpdir(), "budget-first-run-files-"));
      cpSync(root, files, { recursive: true });
      firstRun = { fake: own, runners: own.saveRunners(), root, files, model, env };
    });
    afterAll(async () => {
      await firstRun.fake.stop();
      for (const dir of [firstRun.root, firstRun.files]) rmSync(dir, { recursive: true, force: true });
    });
    beforeEach(() => {
      ({ fake, model, env } = firstRun);
      fake.restoreRunners(firstRun.runners);
      rmSync(firstRun.root, { recursive: true, force: true });
      cpSync(firstRun.files, firstRun.root, { recursive: true });
    });

    test("a no-op re-run: the cell's tagged listing, then per shard one read and the token check (verify, and removing what it records)", async () => {
      const { sent, result } = await onboard();

      expect(result.shards.every((outcome) => outcome.action === "none")).toBe(true);
      expect(sent).toBe(pages(ours()) + 3 * ours());
      // No runner of another team was read, nor listed: only the cell's listing shows its own.
      expect(detailReads(sent)).toBe(ours());
    });

    test("onboard --status: per shard one read, its managers and the token check", async () => {
      const { sent } = await onboard({ status: true });

      expect(sent).toBe(pages(ours()) + 4 * ours());
    });

    test("status: the same, and the running jobs per shard", async () => {
      const { sent, result } = await measure(() => runStatus({ runnerModels: [{ file: "cell-7", model }], env, sleep: async () => {}, log: () => {} }));

      expect(result.cells[0].shards).toHaveLength(ours());
      expect(sent).toBe(pages(ours()) + 5 * ours());
    });

    test("--rotate: per shard one read and one reset", async () => {
      const { sent } = await onboard({ rotate: true });

      expect(sent).toBe(pages(ours()) + 2 * ours());
    });

    test("--remove: per shard one read and one delete", async () => {
      const { sent } = await onboard({ remove: true });

      expect(sent).toBe(pages(ours()) + 2 * ours());
    });

    test("--prune --dry-run: every runner listed by type and with the cell's tag, the cell's runners read once, managers per shard", async () => {
      const { sent } = await onboard({ prune: true, dryRun: true });

      // Listings: instance (every runner, then the cell's), group and project (empty, one page each, twice).
      expect(sent).toBe(pages(UNRELATED + ours()) + pages(ours()) + 4 + ours() + ours());
      expect(detailReads(sent)).toBe(ours());
    });

    test("the lookups of a roll step (onboard --status of some shards) cost the same per shard", async () => {
      const { sent } = await onboard({ status: true, shards: ["s1", "s2"] });

      expect(sent).toBe(pages(ours()) + 4 * 2);
    });
  });
});

test("the report says how many requests the run made", async () => {
  cellOf(3);
  const { result } = await onboard();

  expect(formatOnboardReport(result)).toContain(`${result.requests!.requests} GitLab requests`);
});

describe("several cells of 6 shards on one GitLab, in one run", () => {
  const SHARDS = 6;
  let models: RunnerModel[];
  beforeEach(() => {
    fake = gitlab.fake;
    fake.maxRunnersPerPage = PAGE;
    const root = scratch();
    models = ["cell-7", "cell-8", "cell-9"].map((cellId) => scaledModel({ cellId, gitlabUrl: fake.url, shards: SHARDS, secretsDir: join(root, "secrets") }));
    env = scaledEnv(models[0], fake.adminToken, join(root, "state"));
    seedUnrelatedRunners(fake, UNRELATED);
  });
  const onboardAll = (blocks: string[][] = []) =>
    measure(() => runOnboardCells({ runnerModels: models, env, ...fakeClock(), cellConcurrency: 3, log: (lines) => void blocks.push([...lines]) }));

  test("onboarded together, they share the instance's listing: each cell costs its shards and its own tagged listings, not the other cells' runners", async () => {
    const blocks: string[][] = [];
    const { sent, result } = await onboardAll(blocks);

    expect(result.exitCode).toBe(0);
    // Per cell its tagged listing before and after its creates; the instance's listing once for all cells; one create per shard.
    expect(sent).toBe(3 * 2 + pages(UNRELATED) + 3 * SHARDS);
    // Each cell's progress is one block, headed by its cell, holding only its own shards.
    expect(blocks.map((block) => block[0]).sort()).toEqual(["== cell cell-7", "== cell cell-8", "== cell cell-9"]);
    for (const block of blocks) {
      const cell = block[0].replace("== cell ", "");
      expect(block.slice(1).every((line) => line.startsWith(`${cell}/`))).toBe(true);
    }
  });

  test("status over the cells lists each cell's tagged runners, then per shard a read, managers, jobs and the token check", async () => {
    await onboardAll();

    const { sent } = await measure(() => runStatus({ runnerModels: models.map((model) => ({ file: model.cell.id, model })), env, sleep: async () => {}, log: () => {} }));

    expect(sent).toBe(3 + 5 * 3 * SHARDS);
  });
});
