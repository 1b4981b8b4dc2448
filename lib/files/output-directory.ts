/**
 * Output directories named by the user (--out): created when missing, refused with a
 * clear message (exit 2) when the path is a file or lies under one, never a stack trace.
 */
import { mkdirSync, statSync } from "node:fs";
import { OperationalError, UserInputError } from "../process/errors";

export function ensureOutputDirectory(dir: string, what: string): void {
  try {
    const existing = statSync(dir, { throwIfNoEntry: false });
    if (existing && !existing.isDirectory()) {
      throw new UserInputError(`${what} ${dir} is a file, not a directory; choose another --out`);
    }
    mkdirSync(dir, { recursive: true });
  } catch (error) {
    if (error instanceof UserInputError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOTDIR" || code === "EEXIST") {
      throw new UserInputError(`${what} ${dir} cannot be created: a part of its path is a file; choose another --out`);
    }
    throw new OperationalError(`${what} ${dir} cannot be created (${code ?? (error as Error).message})`, { cause: error });
  }
}
