#!/usr/bin/env node
"use strict";
/**
 * First step of `npm run build` (and so of `npm pack`, `npm publish` and `npm test`, whose prepack
 * and test scripts build): the build runs the dev dependencies (typescript, esbuild), which only
 * `npm ci` in this checkout installs. On a fresh clone npm would otherwise fail with node's
 * "Cannot find module .../typescript/bin/tsc" and a stack: one line that says what to run instead.
 */
const { existsSync } = require("node:fs");
const { join } = require("node:path");

const ROOT = join(__dirname, "..");
const needed = ["typescript/bin/tsc", "esbuild/package.json"];
const missing = needed.filter((path) => !existsSync(join(ROOT, "node_modules", path))).map((path) => path.split("/")[0]);
if (missing.length > 0) {
  process.stderr.write(
    `error: the build needs the dev dependencies (${missing.join(", ")} not in node_modules/): run \`npm ci\` in ${ROOT} first (or \`npm run setup\`, which also fetches the test validators)\n`,
  );
  process.exit(1);
}
