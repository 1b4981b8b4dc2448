/**
 * One onboard run per cell at a time on this machine (or on a shared state directory):
 * two runs at once each found no runner and created one, so a cell got two runners
 * per shard and lost tokens. The lock is a directory made with mkdir (atomic) by
 * proper-lockfile, which refreshes its mtime while held; a lock whose holder was
 * killed (kill -9, a lost machine) stops being refreshed and is taken over once it is
 * older than `staleMs`. Next to it, a small JSON file says who holds it, for the
 * message a waiting run prints.
 *
 * Runs on different machines with different state directories are not serialized by
 * this lock; onboarding also repairs duplicates after the fact (lib/onboard/create-runner.ts).
 */
import { hostname } from "node:os";
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import lockfile from "proper-lockfile";
import { OperationalError } from "../process/errors";

/** Where state of local runs lives (locks under <dir>/locks), relative to the current directory. @default .state in the workspace */
export const STATE_DIR_ENV = "RUNNER_FLEET_STATE_DIR";
export const DEFAULT_STATE_DIR = ".state";
/** How long a run waits for another's lock before giving up. */
export const DEFAULT_LOCK_WAIT_MS = 120_000;
/** A lock not refreshed for this long belongs to a process that died. proper-lockfile's floor is 2s. */
export const DEFAULT_LOCK_STALE_MS = 10_000;
const POLL_MS = 250;

export interface LockHolder {
  readonly pid: number;
  readonly host: string;
  /** ISO 8601 time the lock was taken. */
  readonly since: string;
  readonly command: string;
}

export interface CellLockOptions {
  /** The state directory; the lock is <stateDir>/locks/<cell>.onboard.lock. */
  readonly stateDir: string;
  readonly cell: string;
  /** What holds it, for others' messages ("onboard", "onboard --remove"). */
  readonly command: string;
  /** @default DEFAULT_LOCK_WAIT_MS */
  readonly waitMs?: number;
  /** @default DEFAULT_LOCK_STALE_MS */
  readonly staleMs?: number;
  /** Told once when the lock is busy and the run starts waiting. */
  readonly onWait?: (holder: LockHolder | undefined) => void;
  /**
   * Told when the lock was taken over from a run that never released it (killed, its machine
   * lost): its owner file was still there. Its changes may be half done.
   */
  readonly onTakeover?: (previous: LockHolder) => void;
  /** Told when the lock was lost while held (its directory removed or not refreshed in time). */
  readonly onCompromised?: (error: Error) => void;
}

export interface HeldCellLock {
  readonly path: string;
  release(): Promise<void>;
}

/** The lock is held by another run and the wait ran out. */
export class CellLockBusyError extends OperationalError {
  constructor(
    message: string,
    readonly holder: LockHolder | undefined,
  ) {
    super(message);
    this.name = "CellLockBusyError";
  }
}

/**
 * The state directory of local runs: $RUNNER_FLEET_STATE_DIR (a setting a person types: relative to the
 * current directory), else .state in the workspace (lib/files/workspace.ts), beside the models, so runs
 * from any directory on the same models take the same lock.
 */
export function stateDirectory(env: NodeJS.ProcessEnv, workspace: string, cwd: string = process.cwd()): string {
  const explicit = env[STATE_DIR_ENV];
  return explicit ? resolve(cwd, explicit) : resolve(workspace, DEFAULT_STATE_DIR);
}

export function cellLockPath(stateDir: string, cell: string): string {
  return join(stateDir, "locks", `${cell}.onboard.lock`);
}

export async function acquireCellLock(options: CellLockOptions): Promise<HeldCellLock> {
  const path = cellLockPath(options.stateDir, options.cell);
  const ownerFile = `${path}.owner.json`;
  const waitMs = options.waitMs ?? DEFAULT_LOCK_WAIT_MS;
  const started = Date.now();
  // Only the directories this creates get mode 0700; an existing one is left as it is.
  mkdirSync(join(options.stateDir, "locks"), { recursive: true, mode: 0o700 });
  let toldWaiting = false;
  for (;;) {
    try {
      const release = await lockfile.lock(path, {
        realpath: false,
        lockfilePath: path,
        stale: options.staleMs ?? DEFAULT_LOCK_STALE_MS,
        onCompromised: (error) => options.onCompromised?.(error),
      });
      // A release removes the owner file; one still there belongs to a holder that died with the lock.
      const left = readOwner(ownerFile);
      if (left) options.onTakeover?.(left);
      const holder: LockHolder = { pid: process.pid, host: hostname(), since: new Date().toISOString(), command: options.command };
      writeOwner(ownerFile, holder);
      return {
        path,
        release: async () => {
          rmSync(ownerFile, { force: true });
          await release().catch(() => undefined);
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ELOCKED") {
        throw new OperationalError(`cannot take the onboard lock ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, { cause: error });
      }
      const holder = readOwner(ownerFile);
      const waited = Date.now() - started;
      if (waited >= waitMs) throw new CellLockBusyError(busyMessage(options.cell, path, holder, waited), holder);
      if (!toldWaiting) options.onWait?.(holder);
      toldWaiting = true;
      await new Promise((resolveWait) => setTimeout(resolveWait, Math.min(POLL_MS, waitMs - waited)));
    }
  }
}

function busyMessage(cell: string, path: string, holder: LockHolder | undefined, waitedMs: number): string {
  const who = holder ? `since ${holder.since} (pid ${holder.pid}, host ${holder.host}, ${holder.command})` : "(its holder is not recorded)";
  return (
    `another onboard holds the lock of cell ${cell} ${who}; gave up after waiting ${Math.round(waitedMs / 1000)}s. ` +
    `Let it finish and run again, or wait longer with --lock-wait. A lock whose process died is taken over after it goes stale (${path}).`
  );
}

/** The message of a takeover: whose lock, and what it means for this run. */
export function describeTakeover(cell: string, previous: LockHolder): string {
  return (
    `took over the onboard lock of cell ${cell} left by pid ${previous.pid} on host ${previous.host} (${previous.command}, since ${previous.since}): ` +
    "that run stopped without releasing it (killed, or its machine lost); whatever it left half done is reconciled by this run"
  );
}

export function describeHolder(holder: LockHolder | undefined): string {
  return holder ? `another onboard holds the lock since ${holder.since} (pid ${holder.pid}, host ${holder.host}, ${holder.command})` : "another onboard holds the lock";
}

function writeOwner(file: string, holder: LockHolder): void {
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(holder)}\n`, { mode: 0o600 });
  renameSync(temporary, file);
}

function readOwner(file: string): LockHolder | undefined {
  try {
    const parsed = JSON.parse(readFileSync(file, "utf8")) as Partial<LockHolder>;
    if (typeof parsed.pid === "number" && typeof parsed.host === "string" && typeof parsed.since === "string") {
      return { pid: parsed.pid, host: parsed.host, since: parsed.since, command: String(parsed.command ?? "onboard") };
    }
  } catch {
    // No owner file yet (the holder is between mkdir and writing it), or a torn one: not worth failing over.
  }
  return undefined;
}
