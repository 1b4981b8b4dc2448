/**
 * The local secret store: one JSON file per shard in `secrets.local_dir`
 * (directory 0700, files 0600), written atomically (temporary file, then rename) so
 * a crash never leaves half a token behind.
 */
import { randomBytes } from "node:crypto";
import { chmodSync, closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, unlinkSync, writeSync } from "node:fs";
import { join, resolve } from "node:path";
import { secretLocation } from "../model/names";
import type { RunnerModel, Shard } from "../model/schema";
import { SecretStoreError, type SecretStore, type StoredRunnerToken } from "./store";

export const LOCAL_DIR_MODE = 0o700;
export const LOCAL_FILE_MODE = 0o600;

export class LocalSecretStore implements SecretStore {
  readonly kind = "local" as const;
  readonly needsCredentials = false;
  /** Absolute directory of the secret files. */
  readonly dir: string;

  /** @param baseDir resolves a relative `secrets.local_dir`. @default process.cwd() */
  constructor(
    private readonly model: RunnerModel,
    baseDir: string = process.cwd(),
  ) {
    this.dir = resolve(baseDir, model.secrets.local_dir);
  }

  fileOf(shard: Shard): string {
    return join(this.dir, secretLocation(this.model, shard).localFileName);
  }

  describe(shard: Shard): string {
    return `local file ${this.fileOf(shard)}`;
  }

  async read(shard: Shard): Promise<StoredRunnerToken | undefined> {
    const file = this.fileOf(shard);
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw new SecretStoreError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? "read failed"}`);
    }
    let parsed: Partial<StoredRunnerToken>;
    try {
      parsed = JSON.parse(text) as Partial<StoredRunnerToken>;
    } catch {
      // Never echo the content: it may hold a token.
      throw new SecretStoreError(`${file} is not valid JSON; move it away and run onboard again to recover the runner's token`);
    }
    if (typeof parsed.token !== "string" || typeof parsed.runnerId !== "number" || typeof parsed.gitlabUrl !== "string") {
      throw new SecretStoreError(`${file} lacks token, runnerId or gitlabUrl; move it away and run onboard again to recover the runner's token`);
    }
    return parsed as StoredRunnerToken;
  }

  async write(shard: Shard, value: StoredRunnerToken): Promise<void> {
    const file = this.fileOf(shard);
    const temporary = join(this.dir, `.${secretLocation(this.model, shard).localFileName}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
    try {
      mkdirSync(this.dir, { recursive: true, mode: LOCAL_DIR_MODE });
      // mkdir's mode is filtered by the umask and ignored for an existing directory.
      chmodSync(this.dir, LOCAL_DIR_MODE);
      const fd = openSync(temporary, "wx", LOCAL_FILE_MODE);
      try {
        writeSync(fd, `${JSON.stringify(value, null, 2)}\n`);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      chmodSync(temporary, LOCAL_FILE_MODE);
      renameSync(temporary, file);
    } catch (error) {
      rmSync(temporary, { force: true });
      throw new SecretStoreError(`cannot write ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, { cause: error });
    }
  }

  async remove(shard: Shard): Promise<boolean> {
    const file = this.fileOf(shard);
    try {
      unlinkSync(file);
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
      throw new SecretStoreError(`cannot delete ${file}: ${(error as NodeJS.ErrnoException).code ?? "unlink failed"}`);
    }
  }
}
