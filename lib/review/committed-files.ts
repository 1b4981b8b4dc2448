/**
 * Files as commits hold them, for one review: each read once, and the reads a review knows it will make
 * asked of one `git cat-file --batch` together. A review reads each changed cell's model at the base and
 * the head several times over (whether it exists there, its cost, warnings, import note and queue), and
 * one git process per read made a change to a hundred models start close to a thousand of them.
 *
 * `git cat-file --batch` (git's documentation, "BATCH OUTPUT") answers each line of its input, in order,
 * with `<oid> SP <type> SP <size> LF <contents> LF`, or `<object> SP missing LF` for a name that is not
 * there (`ambiguous` for an abbreviation that names several). The name `<commit>:<path>` is read from
 * the repository's root, whatever directory git runs in.
 */
import { spawn } from "node:child_process";
import { OperationalError } from "../process/errors";

/** `<commit>:<path>`, as git names a file in a commit. */
export type CommittedPath = readonly [commit: string, path: string];

/** Runs `git cat-file --batch` in `cwd` on `names`, one a line, and returns all it printed. */
export type CatFileBatch = (cwd: string, names: readonly string[]) => Promise<Buffer>;

export class CommittedFiles {
  private readonly texts = new Map<string, string | undefined>();

  /** `cwd`: any directory of the repository. `batch`: for tests that count the git processes. */
  constructor(
    private readonly cwd: string,
    private readonly batch: CatFileBatch = catFileBatch,
  ) {}

  /** Reads every file of `paths` not read yet, with one git process. */
  async prefetch(paths: readonly CommittedPath[]): Promise<void> {
    const names = [...new Set(paths.map(nameOf))].filter((name) => !this.texts.has(name));
    if (names.length === 0) return;
    // A line of the input is one name: a path with a line break in it cannot be asked this way, and is
    // answered as missing (git's own pathspecs are no better at it: `git diff --name-only` quotes it).
    const unaskable = (name: string) => /[\n\r]/.test(name);
    for (const name of names.filter(unaskable)) this.texts.set(name, undefined);
    const askable = names.filter((name) => !unaskable(name));
    const answers = parseBatchOutput(await this.batch(this.cwd, askable), askable);
    askable.forEach((name, index) => this.texts.set(name, answers[index]));
  }

  /** The file's text at `commit`, or undefined where the commit has no such file (or a directory there). */
  async read(commit: string, path: string): Promise<string | undefined> {
    const name = nameOf([commit, path]);
    if (!this.texts.has(name)) await this.prefetch([[commit, path]]);
    return this.texts.get(name);
  }

  /** The file's text at `commit`, or "" where there is none (what `git show` prints then, on stdout). */
  async text(commit: string, path: string): Promise<string> {
    return (await this.read(commit, path)) ?? "";
  }

  async exists(commit: string, path: string): Promise<boolean> {
    return (await this.read(commit, path)) !== undefined;
  }
}

function nameOf([commit, path]: CommittedPath): string {
  return `${commit}:${path}`;
}

export function catFileBatch(cwd: string, names: readonly string[]): Promise<Buffer> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn("git", ["cat-file", "--batch"], { cwd, stdio: ["pipe", "pipe", "pipe"] });
    const out: Buffer[] = [];
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => out.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    child.on("error", (error) => reject(new OperationalError(`git cat-file --batch could not start in ${cwd}: ${error.message}`)));
    child.on("close", (code) => {
      if (code === 0) resolvePromise(Buffer.concat(out));
      else reject(new OperationalError(`git cat-file --batch failed in ${cwd} (exit ${code}): ${stderr.trim().split("\n").slice(-3).join(" ")}`));
    });
    child.stdin.end(names.map((name) => `${name}\n`).join(""));
  });
}

/** One answer per name asked, in order: the blob's text, or undefined (missing, ambiguous, not a file). */
export function parseBatchOutput(output: Buffer, names: readonly string[]): Array<string | undefined> {
  const answers: Array<string | undefined> = [];
  let at = 0;
  for (const name of names) {
    const lineEnd = output.indexOf(0x0a, at);
    if (lineEnd === -1) throw new OperationalError(`git cat-file --batch ended before answering ${JSON.stringify(name)}`);
    const header = output.subarray(at, lineEnd).toString("utf8");
    at = lineEnd + 1;
    const found = /^[0-9a-f]+ (\S+) (\d+)$/.exec(header);
    if (!found) {
      // `<name> missing` or `<name> ambiguous`: nothing follows the line.
      answers.push(undefined);
      continue;
    }
    const size = Number(found[2]);
    const contents = output.subarray(at, at + size);
    if (contents.length !== size) throw new OperationalError(`git cat-file --batch ended inside ${JSON.stringify(name)} (${contents.length} of ${size} bytes)`);
    answers.push(found[1] === "blob" ? contents.toString("utf8") : undefined);
    // The contents, then a line feed.
    at += size + 1;
  }
  return answers;
}
