/**
 * The local secret store: one JSON file per shard in `secrets.local_dir` (files 0600),
 * written atomically (temporary file, then rename) so a crash never leaves half a
 * token behind.
 *
 * The directory is created 0700 when missing. One that exists is never chmod-ed (it may
 * be shared, such as a /tmp-like 1777 directory), and one that others can write to is
 * refused: they could swap a token file, or read tokens in files they plant.
 */
import { randomBytes } from "node:crypto";
import { chmodSync, closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync, unlinkSync, writeSync } from "node:fs";
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
    this.ensurePrivateDirectory();
    try {
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

  async checkWritable(): Promise<void> {
    this.ensurePrivateDirectory();
  }

  /** Creates the directory 0700, or checks that an existing one is not writable by others; never changes an existing one. */
  private ensurePrivateDirectory(): void {
    let mode: number;
    try {
      const stat = statSync(this.dir);
      if (!stat.isDirectory()) throw new SecretStoreError(`secrets.local_dir ${this.dir} is not a directory`);
      mode = stat.mode;
    } catch (error) {
      if (error instanceof SecretStoreError) throw error;
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") {
        throw new SecretStoreError(`cannot inspect secrets.local_dir ${this.dir}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, { cause: error });
      }
      try {
        mkdirSync(this.dir, { recursive: true, mode: LOCAL_DIR_MODE });
        // Ours now: mkdir's mode was filtered by the umask.
        chmodSync(this.dir, LOCAL_DIR_MODE);
      } catch (mkdirError) {
        throw new SecretStoreError(`cannot create secrets.local_dir ${this.dir}: ${(mkdirError as NodeJS.ErrnoException).code ?? (mkdirError as Error).message}`, { cause: mkdirError });
      }
      return;
    }
    if ((mode & 0o022) !== 0) {
      throw new SecretStoreError(
        `secrets.local_dir ${this.dir} is writable by ${mode & 0o002 ? "everyone" : "its group"} (mode ${(mode & 0o7777).toString(8).padStart(4, "0")}); ` +
          `runner tokens are kept only in a directory no one else can write to: point secrets.local_dir at a private directory (a missing one is created 0700). Its mode was left unchanged`,
      );
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
