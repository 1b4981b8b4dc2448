/**
 * Throwaway git repositories for review tests.
 * - createTempRepo: any files, one initial commit.
 * - createFakeSynthRepo: a repository whose stacks/main.js is the fake synth of
 *   test/fixtures/fake-synth (compiled by tsc to dist/stacks/main.js like the real one).
 * - createRepoFromCheckout: a copy of this checkout's tracked files, for an
 *   end-to-end review over the real synth (`runReview({ cwd: repo.dir, base: "HEAD~1", head: "HEAD" })`).
 * Each gets a node_modules symlink to this checkout's, ignored by git.
 */
import { execFileSync } from "node:child_process";
import { appendFileSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

export const CHECKOUT_ROOT = join(__dirname, "..", "..");
const FAKE_SYNTH = join(CHECKOUT_ROOT, "test", "fixtures", "fake-synth", "main.js");

export interface TempRepo {
  readonly dir: string;
  write(path: string, content: string): void;
  read(path: string): string;
  remove(path: string): void;
  /** Commits everything and returns the new commit's sha. */
  commit(message: string): string;
  git(...args: string[]): string;
  cleanup(): void;
}

const REPO_CONFIG = "[user]\n\tname = Review Test\n\temail = review@example.invalid\n[commit]\n\tgpgsign = false\n[maintenance]\n\tauto = false\n";

/** HEAD's commit read from the branch's loose ref, as `git rev-parse HEAD` would print it (undefined when HEAD is not such a ref). */
function headCommit(dir: string): string | undefined {
  const head = /^ref: (refs\/heads\/\S+)\n$/.exec(readFileSync(join(dir, ".git", "HEAD"), "utf8"))?.[1];
  const ref = head === undefined ? undefined : join(dir, ".git", head);
  return ref !== undefined && existsSync(ref) ? readFileSync(ref, "utf8").trim() : undefined;
}

export function createTempRepo(files: Record<string, string>): TempRepo {
  const dir = mkdtempSync(join(tmpdir(), "review-repo-"));
  const git = (...args: string[]) => execFileSync("git", args, { cwd: dir, encoding: "utf8" });
  git("init", "--quiet", "--initial-branch=main");
  // Written into .git/config, not with three `git config` runs. maintenance.auto off: each commit would
  // otherwise start `git maintenance run --auto`, a process per commit with nothing to do in a repository this small.
  appendFileSync(join(dir, ".git", "config"), REPO_CONFIG);
  const repo: TempRepo = {
    dir,
    write(path, content) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), content);
    },
    read: (path) => readFileSync(join(dir, path), "utf8"),
    remove: (path) => rmSync(join(dir, path)),
    commit(message) {
      git("add", "--all");
      git("commit", "--quiet", "--allow-empty", "-m", message);
      return headCommit(dir) ?? git("rev-parse", "HEAD").trim();
    },
    git,
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
  repo.write(".gitignore", "node_modules\ndist/\ncdktf.out/\n");
  for (const [path, content] of Object.entries(files)) repo.write(path, content);
  symlinkSync(join(CHECKOUT_ROOT, "node_modules"), join(dir, "node_modules"), "dir");
  repo.commit("initial");
  return repo;
}

export function createFakeSynthRepo(models: Record<string, string>, extra: Record<string, string> = {}): TempRepo {
  const files: Record<string, string> = {
    "package.json": `${JSON.stringify({ name: "fake-models", private: true }, null, 2)}\n`,
    "tsconfig.json": `${JSON.stringify(
      // noCheck: the fake synth is plain JavaScript, so the compile only transpiles it (a syntax error still
      // fails it); without type checking tsc skips loading its standard library, most of a compile's time.
      { compilerOptions: { allowJs: true, noCheck: true, outDir: "dist", rootDir: ".", module: "commonjs", target: "es2022", types: [] }, include: ["stacks/**/*.js"] },
      null,
      2,
    )}\n`,
    "stacks/main.js": readFileSync(FAKE_SYNTH, "utf8"),
    "lib/shared.txt": "v1\n",
    "README.md": "# models\n",
    ...extra,
  };
  for (const [cell, text] of Object.entries(models)) files[`models/${cell}.yaml`] = text;
  return createTempRepo(files);
}

/** A copy of this checkout's tracked files (as they are on disk) in a new repository: for the real synth. */
export function createRepoFromCheckout(root: string = CHECKOUT_ROOT): TempRepo {
  const tracked = execFileSync("git", ["ls-files", "-z"], { cwd: root, encoding: "utf8" })
    .split("\0")
    .filter((path) => path !== "" && path !== "node_modules");
  const repo = createTempRepo({});
  for (const path of tracked) {
    mkdirSync(dirname(join(repo.dir, path)), { recursive: true });
    try {
      copyFileSync(join(root, path), join(repo.dir, path));
    } catch {
      // Deleted on disk but still tracked: the copy reflects the working tree.
    }
  }
  repo.commit("copy of the checkout");
  return repo;
}
