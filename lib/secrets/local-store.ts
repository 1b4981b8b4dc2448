/**
 * The local secret store: one JSON file per shard in `secrets.local_dir` (files 0600),
 * written atomically (temporary file, then rename) so a crash never leaves half a
 * token behind.
 *
 * The directory is created 0700 when missing. One that exists is never chmod-ed (it may
 * be shared, such as a /tmp-like 1777 directory), and one that others can write to is
 * refused: they could swap a token file, or read tokens in files they plant.
 *
 * Symlinks are refused, never followed: a link planted at the directory's path or at a
 * secret's path could send a token into another file or feed us someone else's. Secret
 * files are opened with O_NOFOLLOW and must be regular files of ours that nobody else can
 * read or write.
 */
import { randomBytes } from "node:crypto";
import { chmodSync, closeSync, constants, fstatSync, fsyncSync, lstatSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, unlinkSync, writeSync } from "node:fs";
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
      text = readPrivateFile(file);
    } catch (error) {
      if (error instanceof SecretStoreError) throw error;
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT") return undefined;
      if (code === "ELOOP") throw new SecretStoreError(`${file} is a symbolic link; secret files are never followed through links: remove the link and run onboard again`);
      throw new SecretStoreError(`cannot read ${file}: ${code ?? "read failed"}`);
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
      const stat = lstatSync(this.dir);
      if (stat.isSymbolicLink()) {
        throw new SecretStoreError(`secrets.local_dir ${this.dir} is a symbolic link; runner tokens are never written through links: point secrets.local_dir at the real directory`);
      }
      if (!stat.isDirectory()) throw new SecretStoreError(`secrets.local_dir ${this.dir} is not a directory`);
      if (typeof process.getuid === "function" && stat.uid !== process.getuid()) {
        throw new SecretStoreError(`secrets.local_dir ${this.dir} belongs to another user (uid ${stat.uid}); runner tokens are kept only in a directory of your own`);
      }
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

/**
 * The text of a secret file, opened without following a link (O_NOFOLLOW: ELOOP on a
 * symlink), and only when it is a regular file of ours that nobody else can read or write.
 */
function readPrivateFile(file: string): string {
  const fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new SecretStoreError(`${file} is not a regular file; move it away and run onboard again`);
    if (typeof process.getuid === "function" && stat.uid !== process.getuid()) {
      throw new SecretStoreError(`${file} belongs to another user (uid ${stat.uid}); a token file is trusted only when it is yours`);
    }
    if ((stat.mode & 0o077) !== 0) {
      throw new SecretStoreError(`${file} is open to others (mode ${(stat.mode & 0o777).toString(8).padStart(4, "0")}); its token may have leaked: chmod 600 it, and consider onboard --rotate`);
    }
    return readFileSync(fd, "utf8");
  } finally {
    closeSync(fd);
  }
}
