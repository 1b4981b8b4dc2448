/**
 * build/drop-redundant-names.js takes out of a bundle the `__name(fn, "fn")` calls that set a name a
 * declaration already has. Checked on a bundle esbuild makes here with the commands' settings, from two
 * modules whose declarations clash (so esbuild renames one of each): every function and class keeps the
 * name it was written with, a function declared inside a function too; only calls that changed nothing
 * went; and every other character keeps its place, so the source map still holds.
 */
import { buildSync } from "esbuild";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runInNewContext } from "node:vm";

const { dropRedundantNames } = require("../../build/drop-redundant-names") as { dropRedundantNames: (source: string) => string };

const MODULE = (tag: string) => `
  export class Construct { kind() { return "${tag}"; } }
  export function resolve(value) {
    function makeContext() { return makeContext.name; }
    return [value, makeContext()];
  }
  export const arrow = () => 1;
`;

let dir: string;
let bundled: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "bundle-names-"));
  writeFileSync(join(dir, "a.js"), MODULE("a"));
  writeFileSync(join(dir, "b.js"), MODULE("b"));
  writeFileSync(
    join(dir, "entry.js"),
    `import * as a from "./a.js"; import * as b from "./b.js";
     export const names = [a.Construct.name, b.Construct.name, a.resolve.name, b.resolve.name, a.resolve(1)[1], b.resolve(2)[1], a.arrow.name, b.arrow.name];`,
  );
  // The settings build/bundle-commands.js gives the command bundles, as far as names go.
  const result = buildSync({ entryPoints: [join(dir, "entry.js")], bundle: true, write: false, format: "cjs", platform: "node", keepNames: true, minifyWhitespace: true, minifySyntax: true });
  bundled = result.outputFiles[0].text;
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

function namesOf(source: string): string[] {
  const module = { exports: {} as { names?: string[] } };
  runInNewContext(source, { module, exports: module.exports, require });
  return module.exports.names!;
}

test("esbuild renamed the clashing declarations, so the bundle holds both kinds of __name call", () => {
  expect(bundled).toMatch(/__name\(Construct2,"Construct"\)|__name\(this,"Construct"\)/);
  expect(bundled).toMatch(/__name\(resolve2,"resolve"\)/);
  expect(bundled).toMatch(/__name\(makeContext,"makeContext"\)/);
});

test("every function and class keeps its written name after the redundant calls are dropped", () => {
  const expected = ["Construct", "Construct", "resolve", "resolve", "makeContext", "makeContext", "arrow", "arrow"];
  expect(namesOf(bundled)).toEqual(expected);
  const dropped = dropRedundantNames(bundled);
  expect(dropped).not.toBe(bundled);
  expect(namesOf(dropped)).toEqual(expected);
});

test("only calls that name a declaration by its own name are dropped, and nothing else moves", () => {
  const dropped = dropRedundantNames(bundled);
  expect(dropped).not.toMatch(/__name\(makeContext,"makeContext"\)/);
  expect(dropped).toMatch(/__name\(resolve2,"resolve"\)/);
  expect(dropped.length).toBe(bundled.length);
  // Outside the dropped calls, each character is where it was (the source map's positions hold).
  const redundantCalls = [...bundled.matchAll(/__name\(([\w$]+),"\1"\)/g)].map((match) => [match.index, match.index + match[0].length]);
  expect(redundantCalls.length).toBeGreaterThan(0);
  const changed = [...bundled].flatMap((char, index) => (char === dropped[index] ? [] : [index]));
  expect(changed.filter((index) => !redundantCalls.some(([start, end]) => index >= start && index < end))).toEqual([]);
});

test("a property or another identifier ending in __name is not taken for the helper", () => {
  const source = `x.__name(a,"a");my__name(b,"b");__name(c,"c");`;
  expect(dropRedundantNames(source)).toBe(`x.__name(a,"a");my__name(b,"b");c${" ".repeat(`__name(c,"c")`.length - 1)};`);
});
