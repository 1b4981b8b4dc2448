/**
 * Ctrl-C during `review`: the git worktree, the temporary directories and the synth
 * processes it started are gone afterwards. Runs bin/review for real and sends it
 * SIGINT while both synths are running (they wait until killed).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CHECKOUT_ROOT, createFakeSynthRepo, type TempRepo } from "./review-temp-repo";

/** A synth that records its pid, then waits forever: the interrupt always lands mid-synth. */
const HANGING_SYNTH = `"use strict";
const { writeFileSync } = require("node:fs");
const { join } = require("node:path");
writeFileSync(join(process.env.SYNTH_MARKERS, String(process.pid)), "");
setInterval(() => {}, 1000);
`;

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function waitFor(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("review interrupted with Ctrl-C", () => {
  let repo: TempRepo;
  let scratch: string;
  let started: ChildProcess | undefined;
  beforeEach(() => {
    repo = createFakeSynthRepo({ "cell-1": "project: fleet-prod\nmachine_type: e2-small\n" }, { "stacks/main.js": HANGING_SYNTH });
    repo.write("models/cell-1.yaml", "project: fleet-prod\nmachine_type: e2-medium\n");
    repo.commit("change");
    scratch = mkdtempSync(join(tmpdir(), "review-interrupt-"));
  });
  afterEach(() => {
    // A failed run must not leave the processes it started behind.
    if (started && started.exitCode === null) started.kill("SIGKILL");
    const markers = join(scratch, "markers");
    for (const pid of existsSync(markers) ? readdirSync(markers).map(Number) : []) if (isAlive(pid)) process.kill(pid, "SIGKILL");
    repo.cleanup();
    rmSync(scratch, { recursive: true, force: true });
  });

  it("removes its worktrees, temporary directories and synth processes, and exits 130", async () => {
    const temp = join(scratch, "tmp");
    const markers = join(scratch, "markers");
    for (const dir of [temp, markers]) mkdirSync(dir);
    const child = (started = spawn(process.execPath, [join(CHECKOUT_ROOT, "bin", "review"), "--base", "HEAD~1", "--head", "HEAD"], {
      cwd: repo.dir,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, TMPDIR: temp, SYNTH_MARKERS: markers },
      stdio: ["ignore", "pipe", "pipe"],
    }));
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));

    // Both refs are checked out and their synths are running.
    await waitFor(() => readdirSync(markers).length === 2, 60_000);
    expect(repo.git("worktree", "list", "--porcelain").match(/^worktree /gm)).toHaveLength(3);
    expect(readdirSync(temp).filter((name) => name.startsWith("runner-fleet-synth-"))).toHaveLength(2);
    const synthPids = readdirSync(markers).map(Number);

    child.kill("SIGINT");
    const code = await exited;

    expect(code).toBe(130);
    expect(stderr).toContain("interrupted (SIGINT)");
    expect(readdirSync(temp)).toEqual([]);
    expect(repo.git("worktree", "list", "--porcelain").match(/^worktree /gm)).toHaveLength(1);
    expect(existsSync(join(repo.dir, ".git", "worktrees")) ? readdirSync(join(repo.dir, ".git", "worktrees")) : []).toEqual([]);
    await waitFor(() => synthPids.every((pid) => !isAlive(pid)), 5_000);
    expect(readFileSync(join(repo.dir, "models", "cell-1.yaml"), "utf8")).toContain("e2-medium");
  }, 90_000);
});
