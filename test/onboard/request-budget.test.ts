/**
 * The request budget of every command that looks runners up, pinned as exact counts
 * (they do not depend on the machine): a cell whose shards all share one tag, on an
 * instance with 150 runners of other teams (two listing pages; every tenth also carries the
 * shared tag). Each budget is a constant per shard plus the listing's pages; measured at
 * two sizes, the difference is that constant times the extra shards, so it stays linear.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { formatOnboardReport, runOnboard, type OnboardOptions } from "../../app/commands/onboard";
import { runOnboardCells } from "../../app/commands/onboard-cells";
import { runStatus } from "../../app/commands/status";
import type { RunnerModel } from "../../lib/model/schema";
import type { FakeGitLab } from "../support/fake-gitlab";
import { useFakeGitLab } from "../support/fake-gitlab-setup";
import { scaledEnv, scaledModel, seedUnrelatedRunners } from "../support/scaled-model";
import { fakeClock } from "./helpers";

const gitlab = useFakeGitLab();
const UNRELATED = 150;
const UNRELATED_WITH_SHARED_TAG = UNRELATED / 10;
/** GitLab's page size for our listings (LIST_PAGE_SIZE). */
const pages = (runners: number) => Math.max(1, Math.ceil(runners / 100));

let fake: FakeGitLab;
let model: RunnerModel;
let env: NodeJS.ProcessEnv;

function cellOf(shards: number): void {
  fake = gitlab.fake;
  const root = mkdtempSync(join(tmpdir(), "budget-"));
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

const onboard = (options: Partial<OnboardOptions> = {}) => measure(() => runOnboard({ runnerModel: model, env, ...fakeClock(), log: () => {}, ...options }));

describe.each([4, 12])("a cell of %i shards sharing one tag, next to 150 unrelated runners", (shards) => {
  const ours = () => shards;
  beforeEach(() => cellOf(shards));

  test("first run: the listing, one tag listing, the unrelated runners with the shared tag read once, one create per shard, one listing to settle", async () => {
    const { sent, result } = await onboard();

    expect(result.exitCode).toBe(0);
    expect(sent).toBe(pages(UNRELATED) + 1 + UNRELATED_WITH_SHARED_TAG + ours() + pages(UNRELATED + ours()));
  });

  describe("after the first run", () => {
    beforeEach(async () => {
      await onboard();
    });

    test("a no-op re-run: the listing's pages, then per shard one read and the token check (verify, and removing what it records)", async () => {
      const { sent, result } = await onboard();

      expect(result.shards.every((outcome) => outcome.action === "none")).toBe(true);
      expect(sent).toBe(pages(UNRELATED + ours()) + 3 * ours());
      // No runner of another team was read: only the listing shows them.
      expect(fake.requests.slice(-sent).filter((request) => /^\/api\/v4\/runners\/\d+$/.test(request.path))).toHaveLength(ours());
    });

    test("onboard --status: per shard one read, its managers and the token check", async () => {
      const { sent } = await onboard({ status: true });

      expect(sent).toBe(pages(UNRELATED + ours()) + 4 * ours());
    });

    test("status: the same, and the running jobs per shard", async () => {
      const { sent, result } = await measure(() => runStatus({ runnerModels: [{ file: "cell-7", model }], env, sleep: async () => {}, log: () => {} }));

      expect(result.cells[0].shards).toHaveLength(ours());
      expect(sent).toBe(pages(UNRELATED + ours()) + 5 * ours());
    });

    test("--rotate: per shard one read and one reset", async () => {
      const { sent } = await onboard({ rotate: true });

      expect(sent).toBe(pages(UNRELATED + ours()) + 2 * ours());
    });

    test("--prune --dry-run: the three listings, every listed runner read once (a removed shard's runner can only be told by its note), managers per shard", async () => {
      const { sent } = await onboard({ prune: true, dryRun: true });

      expect(sent).toBe(pages(UNRELATED + ours()) + 2 + (UNRELATED + ours()) + ours());
    });

    test("the lookups of a roll step (onboard --status of some shards) cost the same per shard", async () => {
      const { sent } = await onboard({ status: true, shards: ["s1", "s2"] });

      expect(sent).toBe(pages(UNRELATED + ours()) + 4 * 2);
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
    const root = mkdtempSync(join(tmpdir(), "budget-"));
    models = ["cell-7", "cell-8", "cell-9"].map((cellId) => scaledModel({ cellId, gitlabUrl: fake.url, shards: SHARDS, secretsDir: join(root, "secrets") }));
    env = scaledEnv(models[0], fake.adminToken, join(root, "state"));
    seedUnrelatedRunners(fake, UNRELATED);
  });
  const onboardAll = (blocks: string[][] = []) =>
    measure(() => runOnboardCells({ runnerModels: models, env, ...fakeClock(), cellConcurrency: 3, log: (lines) => void blocks.push([...lines]) }));

  test("onboarded together, they share the listings and the reads: each cell costs its shards, not the other cells' runners", async () => {
    const blocks: string[][] = [];
    const { sent, result } = await onboardAll(blocks);

    expect(result.exitCode).toBe(0);
    // The listing and the tag listing once for all cells, each unrelated runner with the shared tag read once,
    // one create per shard, and one listing per cell to settle (fresh after its creates).
    const creates = 3 * SHARDS;
    // (A cell settles when its shards are done: its listing holds the creates of the cells done by then.)
    expect(sent).toBeLessThanOrEqual(pages(UNRELATED) + 1 + UNRELATED_WITH_SHARED_TAG + creates + 3 * pages(UNRELATED + creates));
    expect(sent).toBeGreaterThanOrEqual(pages(UNRELATED) + 1 + UNRELATED_WITH_SHARED_TAG + creates + 3 * pages(UNRELATED));
    // Each cell's progress is one block, headed by its cell, holding only its own shards.
    expect(blocks.map((block) => block[0]).sort()).toEqual(["== cell cell-7", "== cell cell-8", "== cell cell-9"]);
    for (const block of blocks) {
      const cell = block[0].replace("== cell ", "");
      expect(block.slice(1).every((line) => line.startsWith(`${cell}/`))).toBe(true);
    }
  });

  test("status over the cells lists the instance once, then per shard a read, managers, jobs and the token check", async () => {
    await onboardAll();

    const { sent } = await measure(() => runStatus({ runnerModels: models.map((model) => ({ file: model.cell.id, model })), env, sleep: async () => {}, log: () => {} }));

    expect(sent).toBe(pages(UNRELATED + 3 * SHARDS) + 5 * 3 * SHARDS);
  });
});
