/**
 * How many threads a review's compile of a ref gives TypeScript's type checking. TypeScript 7's tsc checks
 * with four checkers by default, each over a quarter of the files but each building the types they share
 * again ("in the worst case no faster than single-threaded checking": microsoft/typescript-go PR #202;
 * `--checkers`, PR #1985). A review compiles the base and the head at once, so each compile gets half the
 * machine's cores, and checkers beyond those only redo work: on 2 cores the default took 4.3 CPU-s for
 * this project and `--singleThreaded` 2.5, in less wall time too.
 */
import { availableParallelism } from "node:os";

/** The most checkers tsc runs by default. */
const DEFAULT_CHECKERS = 4;

/** tsc's arguments for one of two compiles that run at once on `cores` cores. */
export function compileThreadArgs(cores: number = availableParallelism()): string[] {
  const checkers = Math.min(DEFAULT_CHECKERS, Math.floor(cores / 2));
  return checkers <= 1 ? ["--singleThreaded"] : ["--checkers", String(checkers)];
}
