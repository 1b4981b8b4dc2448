/**
 * Cleanup that must run even when the user presses Ctrl-C. Node ends the process on
 * SIGINT/SIGTERM without running `finally` blocks, so work that leaves things behind
 * (a git worktree, temporary directories, child processes writing into them) registers
 * a synchronous cleanup here. On a signal every registered cleanup runs, newest first,
 * and the process exits with 128 + the signal number, as shells expect.
 */
import type { ChildProcess } from "node:child_process";

type Cleanup = () => void;

const cleanups = new Set<Cleanup>();
const SIGNALS = { SIGINT: 2, SIGTERM: 15 } as const;
let installed = false;

function onSignal(signal: keyof typeof SIGNALS): void {
  for (const cleanup of [...cleanups].reverse()) {
    try {
      cleanup();
    } catch {
      // Keep cleaning up: one failed step must not leave the others behind.
    }
  }
  cleanups.clear();
  process.stderr.write(`\ninterrupted (${signal}); cleaned up\n`);
  process.exit(128 + SIGNALS[signal]);
}

/** Registers `cleanup` to run on SIGINT/SIGTERM; call the returned function once the work is done. */
export function cleanupOnInterrupt(cleanup: Cleanup): () => void {
  if (!installed) {
    for (const signal of Object.keys(SIGNALS) as Array<keyof typeof SIGNALS>) process.on(signal, () => onSignal(signal));
    installed = true;
  }
  cleanups.add(cleanup);
  return () => {
    cleanups.delete(cleanup);
  };
}

/** Kills `child` if the process is interrupted while it runs (it would otherwise outlive us). */
export function killOnInterrupt(child: ChildProcess): void {
  const release = cleanupOnInterrupt(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  });
  child.once("exit", release);
}
