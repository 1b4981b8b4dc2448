import { existsSync } from "node:fs";
import { dirname, join } from "node:path";

/**
 * The toolkit's own root (where package.json, templates/ and scripts/ live), whether the
 * code runs compiled from dist/, bundled in dist/bundle/ or as TypeScript under jest; once
 * installed, node_modules/runner-fleet. Only what ships with the toolkit is read from here.
 *
 * The models and everything the commands write (cdktf.out/, the local state and secrets under
 * .state/, the locks) belong to the workspace, not to the toolkit: the directory that holds the
 * models directory (--models-dir, $RUNNER_MODELS_DIR or ./models; ./workspace.ts).
 * In this repository the two are one directory; in a models repository the toolkit is under node_modules.
 */
function findProjectRoot(start: string): string {
  let dir = start;
  while (!existsSync(join(dir, "package.json"))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${start}`);
    dir = parent;
  }
  return dir;
}

export const PROJECT_ROOT = findProjectRoot(__dirname);
