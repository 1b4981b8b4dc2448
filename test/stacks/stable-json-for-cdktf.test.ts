/**
 * The compiled modules' cdktf (a synthesis thread's, the cdktf app's) writes its JSON with
 * lib/text/stable-json.ts (stacks/stable-json-for-cdktf.ts, put in place by importing it), as the
 * command bundles' does: the text json-stable-stringify writes; a call with options other than
 * `space` reaches the package itself. In a child node: outside jest's module registry.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { PROJECT_ROOT } from "../../lib/files/project-root";

const packageStringify = require("cdktf/node_modules/json-stable-stringify") as (value: unknown, options?: unknown) => string;

const IN_COMPILED_MODULES = `
  require(process.argv[1]);
  require("cdktf");
  const { dirname } = require("node:path");
  // What cdktf's lib/synthesize/synthesizer.js got for require("json-stable-stringify").
  const path = require.resolve("json-stable-stringify", { paths: [dirname(require.resolve("cdktf/lib/synthesize/synthesizer.js"))] });
  const stringify = require(path);
  // The package, once loaded, takes the stand-in's place in the cache.
  const standIn = require.cache[path];
  const loadedPackage = () => require.cache[path] !== standIn;
  const value = { b: [1, { d: "x", c: null }], a: {}, e: [] };
  const spaced = stringify(value, { space: 2 });
  const packageLoadedBySpaced = loadedPackage();
  const reversed = stringify(value, { cmp: (x, y) => (x.key < y.key ? 1 : -1) });
  process.stdout.write(JSON.stringify({ spaced, packageLoadedBySpaced, reversed, packageLoadedByCmp: loadedPackage() }));
`;

test("the compiled modules' cdktf writes json-stable-stringify's text without the package, and other options reach the package", () => {
  const run = spawnSync(process.execPath, ["-e", IN_COMPILED_MODULES, join(PROJECT_ROOT, "dist", "stacks", "stable-json-for-cdktf.js")], { encoding: "utf8", cwd: PROJECT_ROOT });
  expect(run.stderr).toBe("");
  const value = { b: [1, { d: "x", c: null }], a: {}, e: [] };
  expect(JSON.parse(run.stdout)).toEqual({
    spaced: packageStringify(value, { space: 2 }),
    packageLoadedBySpaced: false,
    reversed: packageStringify(value, { cmp: (x: { key: string }, y: { key: string }) => (x.key < y.key ? 1 : -1) }),
    packageLoadedByCmp: true,
  });
});
