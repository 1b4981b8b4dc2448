/**
 * Writes a generated model into the models directory, and nowhere else.
 *
 * The file name comes from a trigger variable, so it is checked to name a plain
 * file directly inside the directory. The text goes to a temporary file in the
 * same directory first and then takes the final name in one step (link or rename),
 * so readers never see half a model and a crash leaves no partial file behind.
 */
import { closeSync, fsyncSync, linkSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { basename, dirname, join, resolve } from "node:path";
import { UserInputError } from "../process/errors";

const MODEL_NAME = /^[a-z]([a-z0-9-]{0,61}[a-z0-9])?$/;

export type WriteOutcome = "written" | "exists";

/**
 * Writes `<dir>/<cellId>.yaml`. Without `replace`, an existing model is kept and
 * "exists" is returned (the check and the write are one atomic link, so two jobs
 * racing for the same cell cannot both write).
 */
export function writeModelFile(dir: string, cellId: string, text: string, options: { replace: boolean }): { file: string; outcome: WriteOutcome } {
  if (!MODEL_NAME.test(cellId)) {
    throw new UserInputError(`CELL_ID: expected a DNS label (lowercase letters, digits and '-'), received ${JSON.stringify(cellId)}`);
  }
  const directory = resolve(dir);
  const file = join(directory, `${cellId}.yaml`);
  if (dirname(file) !== directory || basename(file) !== `${cellId}.yaml`) {
    throw new UserInputError(`CELL_ID: ${JSON.stringify(cellId)} would name a file outside ${dir}`);
  }
  mkdirSync(directory, { recursive: true });
  const temporary = join(directory, `.${cellId}.yaml.${randomBytes(6).toString("hex")}.tmp`);
  const fd = openSync(temporary, "wx", 0o644);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    if (options.replace) {
      renameSync(temporary, file);
      return { file: join(dir, `${cellId}.yaml`), outcome: "written" };
    }
    try {
      linkSync(temporary, file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "EEXIST") return { file: join(dir, `${cellId}.yaml`), outcome: "exists" };
      throw error;
    }
    return { file: join(dir, `${cellId}.yaml`), outcome: "written" };
  } finally {
    rmSync(temporary, { force: true });
  }
}
