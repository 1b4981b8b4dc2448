/**
 * The layers of docs/development/architecture.md, enforced on the real import map: an import
 * points down the list or stays in its own zone, and no file reaches itself again.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { importCircles, importEdges, sourceFiles, type ImportEdge } from "../support/import-map";

const ROOT = join(__dirname, "..", "..");
const PRODUCT_FOLDERS = ["app", "stacks", "constructs", "lib"];

/**
 * Top down. A zone is a folder prefix; a file belongs to the longest zone that holds it.
 * Zones on one line are siblings: neither imports the other.
 */
const LAYERS: readonly (readonly string[])[] = [
  ["app"],
  ["stacks"],
  ["constructs"],
  ["lib/review"],
  ["lib/roll", "lib/onboard", "lib/fleet", "lib/simulate", "lib/rollout"],
  ["lib/gitlab"],
  ["lib/secrets", "lib/terraform", "lib/render", "lib/cost", "lib/ci", "lib/state"],
  ["lib/model"],
  ["lib"],
];

const ZONES = LAYERS.flatMap((zones, level) => zones.map((zone) => ({ zone, level })));

function zoneOf(file: string): { zone: string; level: number } | undefined {
  return ZONES.filter(({ zone }) => file.startsWith(`${zone}/`)).sort((a, b) => b.zone.length - a.zone.length)[0];
}

/** Edges that run back up a layer, sideways to a sibling zone, or out of the product folders. */
function againstTheLayers(candidates: readonly ImportEdge[]): ImportEdge[] {
  return candidates.filter((edge) => {
    const from = zoneOf(edge.from);
    const to = zoneOf(edge.to);
    if (!from || !to) return true; // e.g. an import of test/ or bench/ code
    return from.zone !== to.zone && to.level <= from.level;
  });
}

const files = sourceFiles(ROOT, PRODUCT_FOLDERS);
const edges = importEdges(ROOT, files);
// Imports of data (data/prices.json) and templates are resources, not code: no layer.
const internal = edges.filter((edge) => !edge.external && edge.to.endsWith(".ts"));
const describeEdge = (edge: ImportEdge): string => `${edge.from} -> ${edge.to}`;

describe("layers", () => {
  it("reads the real tree", () => {
    expect(files.length).toBeGreaterThan(100);
    expect(internal.length).toBeGreaterThan(400);
    expect(files).toContain("app/commands/provision.ts");
  });

  it("keeps no file at lib's root: its folders show its layers and what each base helper is about", () => {
    expect(files.filter((file) => /^lib\/[^/]+$/.test(file))).toEqual([]);
    expect(files.some((file) => file.startsWith("lib/text/"))).toBe(true);
  });

  it("places every product file in a zone", () => {
    expect(files.filter((file) => !zoneOf(file))).toEqual([]);
  });

  it("has no import that runs up a layer or sideways to a sibling zone", () => {
    expect(againstTheLayers(internal).map(describeEdge)).toEqual([]);
  });

  it("has no import circle", () => {
    expect(importCircles(edges)).toEqual([]);
  });

  it("keeps the two clouds' constructs apart", () => {
    const crossing = internal.filter(
      (edge) =>
        (edge.from.startsWith("constructs/google/") && edge.to.startsWith("constructs/aws/")) ||
        (edge.from.startsWith("constructs/aws/") && edge.to.startsWith("constructs/google/")),
    );
    expect(crossing.map(describeEdge)).toEqual([]);
  });

  it("gives constructs props, never the model: no construct imports lib/model, types included", () => {
    const intoModel = internal.filter((edge) => edge.from.startsWith("constructs/") && edge.to.startsWith("lib/model/"));
    expect(intoModel.map(describeEdge)).toEqual([]);
  });

  it("builds GitLab clients in one module: only lib/gitlab/client.ts imports @gitbeaker/rest", () => {
    const importers = edges.filter((edge) => edge.external && edge.to === "@gitbeaker/rest").map((edge) => edge.from);
    expect([...new Set(importers)]).toEqual(["lib/gitlab/client.ts"]);
  });

  it("is the drawing of docs/development/architecture.md: one line per layer, top down", () => {
    const doc = readFileSync(join(ROOT, "docs", "development", "architecture.md"), "utf8");
    const drawing = (/```text\n([\s\S]*?)```/.exec(doc)?.[1] ?? "").split("\n");
    // `lib/review/` names a folder; `lib/*` (or `lib/ ...`) the root files of lib.
    const lineOf = (zone: string): number =>
      drawing.findIndex((line) => new RegExp(`(^|[\\s,(])${zone}/([\\s*,)]|$)`).test(line));
    const lines = LAYERS.map((zones) => zones.map(lineOf));
    expect(lines.flat().filter((line) => line < 0)).toEqual([]);
    expect(lines.map((zones) => new Set(zones).size)).toEqual(LAYERS.map(() => 1));
    const order = lines.map((zones) => zones[0]);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(new Set(order).size).toBe(order.length);
  });
});

describe("the import map itself", () => {
  it("tells edges down the layers from edges up, sideways and out", () => {
    const edge = (from: string, to: string): ImportEdge => ({ from, to, external: false });
    const down = [edge("app/commands/x.ts", "stacks/y.ts"), edge("lib/model/a.ts", "lib/process/errors.ts"), edge("constructs/aws/a.ts", "constructs/b.ts")];
    const wrong = [edge("lib/model/a.ts", "lib/render/b.ts"), edge("lib/render/a.ts", "lib/cost/b.ts"), edge("stacks/a.ts", "test/support/b.ts")];
    expect(againstTheLayers([...down, ...wrong])).toEqual(wrong);
  });

  it("finds circles and leaves acyclic graphs alone", () => {
    const edge = (from: string, to: string): ImportEdge => ({ from, to, external: false });
    expect(importCircles([edge("a", "b"), edge("b", "c"), edge("c", "a"), edge("c", "d")])).toEqual([["a", "b", "c"]]);
    expect(importCircles([edge("a", "b"), edge("a", "c"), edge("b", "c")])).toEqual([]);
    expect(importCircles([edge("a", "a")])).toEqual([["a"]]);
  });
});
