/**
 * A git repository holding a copy of this project's product: its tracked files without the tests and
 * benchmarks (test/, bench/), which no command reads. review compiles the working tree it reviews, and the
 * tests were most of that compile (tsconfig.json includes them). The commands run from this checkout's
 * built bundles, linked into the copy: they read templates/ and scripts/ of the copy they sit in
 * (PROJECT_ROOT is found from the bundle's place), so a copy whose templates are broken runs broken.
 *
 * The repository has two commits: "initial" (only .gitignore, so no models: a base with nothing to
 * synthesize) and "copy of the product".
 */
import { execFileSync } from "node:child_process";
import { copyFileSync, linkSync, mkdirSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { CHECKOUT_ROOT, createTempRepo, type TempRepo } from "../../review/review-temp-repo";

/** Tracked paths no command reads. */
const NOT_PRODUCT = /^(test|bench)\//;

export function createProductCopy(): TempRepo {
  const tracked = execFileSync("git", ["ls-files", "-z"], { cwd: CHECKOUT_ROOT, encoding: "utf8" })
    .split("\0")
    .filter((path) => path !== "" && path !== "node_modules" && !NOT_PRODUCT.test(path));
  const repo = createTempRepo({});
  for (const path of tracked) {
    mkdirSync(dirname(join(repo.dir, path)), { recursive: true });
    try {
      copyFileSync(join(CHECKOUT_ROOT, path), join(repo.dir, path));
    } catch {
      // Deleted on disk but still tracked: the copy reflects the working tree.
    }
  }
  repo.commit("copy of the product");
  linkBundles(join(CHECKOUT_ROOT, "dist", "bundle"), join(repo.dir, "dist", "bundle"));
  return repo;
}

/**
 * This checkout's built bundles (`npm test` builds first) in the copy, as hard links: 25 MB not copied.
 * The commands only read them; a V8 code cache they leave is renamed into place, which replaces the link
 * and never writes into the checkout's file (bin/load-command.js).
 */
function linkBundles(from: string, to: string): void {
  mkdirSync(to, { recursive: true });
  for (const name of readdirSync(from)) {
    try {
      linkSync(join(from, name), join(to, name));
    } catch {
      copyFileSync(join(from, name), join(to, name));
    }
  }
}
