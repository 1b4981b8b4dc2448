/**
 * stableStringify writes what json-stable-stringify (cdktf's, which the command bundles replace with
 * it) writes when given only `space`: checked against the package on the values that decide the text.
 */
import { seededRandom } from "../../lib/simulate/seeded-random";
import { stableStringify, stableStringifyOr } from "../../lib/text/stable-json";

// eslint-disable-next-line @typescript-eslint/no-require-imports
const packageStringify = require("cdktf/node_modules/json-stable-stringify") as (value: unknown, options?: { space?: string | number }) => string | undefined;

/** A fixed sequence of numbers in [0, 1) for a seed (mulberry32), so every run checks the same ones. */
const numbers = seededRandom;

const SPACES = [undefined, { space: 2 }, { space: "\t" }, { space: 0 }, { space: "" }, { space: 2.5 }, { space: -1 }, {}];

const edgeValues: unknown[] = [
  {},
  [],
  { a: {}, b: [], c: [{}], d: [[]] },
  { b: 1, a: 2, 10: "ten", 9: "nine", "": "empty", "é": "accent", "\u2028": "separator", "a\"b": "quote" },
  [undefined, () => 1, Symbol("s"), null, Number.NaN, -0, Infinity, 1e21, 5e-7],
  { skipped: undefined, fn: () => 1, sym: Symbol("s"), kept: null },
  { date: new Date(Date.UTC(2024, 0, 8)), custom: { toJSON: (key?: string) => `toJSON got ${String(key)}` } },
  { nested: { deeper: { deepest: [1, { z: 1, y: [2, 3] }] } } },
  "a string",
  42,
  null,
  undefined,
  [["a"], [["b", ["c"]]]],
];

function randomValue(next: () => number, depth: number): unknown {
  const pick = Math.floor(next() * (depth > 3 ? 5 : 8));
  if (pick === 0) return Math.floor(next() * 1000) - 500;
  if (pick === 1) return `s${Math.floor(next() * 50)}`;
  if (pick === 2) return next() < 0.5 ? null : next() < 0.5;
  if (pick === 3) return undefined;
  if (pick === 4) return next() * 1e6;
  if (pick === 5) return Array.from({ length: Math.floor(next() * 4) }, () => randomValue(next, depth + 1));
  return Object.fromEntries(Array.from({ length: Math.floor(next() * 5) }, () => [`k${Math.floor(next() * 20)}`, randomValue(next, depth + 1)]));
}

test("writes the text json-stable-stringify writes, for every kind of value and indent", () => {
  for (const options of SPACES) {
    for (const value of edgeValues) expect({ options, value, text: stableStringify(value, options) }).toEqual({ options, value, text: packageStringify(value, options) });
  }
});

test("writes the text json-stable-stringify writes for many nested values", () => {
  const next = numbers(3);
  const differing: unknown[] = [];
  for (let index = 0; index < 3000; index += 1) {
    const value = randomValue(next, 0);
    const options = SPACES[index % SPACES.length];
    if (stableStringify(value, options) !== packageStringify(value, options)) differing.push({ value, options });
  }
  expect(differing).toEqual([]);
});

test("fails on a circular object as json-stable-stringify does, and not on an object met twice", () => {
  const circular: Record<string, unknown> = { a: 1 };
  circular.self = { back: circular };
  expect(() => stableStringify(circular, { space: 2 })).toThrow(new TypeError("Converting circular structure to JSON"));
  expect(() => packageStringify(circular, { space: 2 })).toThrow(new TypeError("Converting circular structure to JSON"));
  const shared = { x: 1 };
  expect(stableStringify({ a: shared, b: [shared, shared] }, { space: 2 })).toBe(packageStringify({ a: shared, b: [shared, shared] }, { space: 2 }));
});

describe("the writer cdktf is handed (stableStringifyOr)", () => {
  test("writes a call with only `space` itself, and loads the real package only for any other call", () => {
    const loads: string[] = [];
    const write = stableStringifyOr(() => {
      loads.push("real");
      return packageStringify as (value: unknown, options?: unknown) => string | undefined;
    });
    const value = { b: [1, { d: null, c: "x" }], a: {} };
    expect(write(value, { space: 2 })).toBe(packageStringify(value, { space: 2 }));
    expect(write(value)).toBe(packageStringify(value));
    expect(loads).toEqual([]);
    const byLength = { cmp: (a: { key: string }, b: { key: string }) => b.key.length - a.key.length || (a.key < b.key ? -1 : 1) };
    const longest = { a: 1, bbb: 2, cc: 3 };
    expect(write(longest, byLength)).toBe('{"bbb":2,"cc":3,"a":1}');
    expect(write(longest, { space: 2, replacer: (_key: string, item: unknown) => item })).toBe(packageStringify(longest, { space: 2 }));
    expect(loads).toEqual(["real"]);
  });

  test("is what the name json-stable-stringify gives cdktf in the tests, as in the command bundles", () => {
    // jest's moduleNameMapper resolves the name alike for every importer, cdktf's manifest and synthesizer included.
    const cdktfGets = require("json-stable-stringify") as (value: unknown, options?: unknown) => string | undefined;
    expect(cdktfGets).toBe(require("../support/stable-json-for-cdktf"));
    expect(cdktfGets).not.toBe(packageStringify);
    expect(cdktfGets({ z: 1, a: [] }, { space: 2 })).toBe(packageStringify({ z: 1, a: [] }, { space: 2 }));
  });
});
