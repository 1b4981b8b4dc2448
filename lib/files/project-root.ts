import { existsSync } from "node:fs";
import { dirname, join } from "node:path";

/**
 * The toolkit's own root (where package.json and templates/ live), whether the
 * code runs compiled from dist/ or as TypeScript under jest.
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
