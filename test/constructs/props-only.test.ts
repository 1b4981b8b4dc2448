/**
 * Constructs take props, never the model: nothing under constructs/ imports lib/model (types included)
 * or the renderers. Model -> props happens in stacks/<cloud>-fleet-props.ts. Read from the real import
 * map (type-only imports included), as the layer test does.
 */
import { join } from "node:path";
import { importEdges, sourceFiles } from "../support/import-map";

const ROOT = join(__dirname, "..", "..");
const files = sourceFiles(ROOT, ["constructs"]);
const edges = importEdges(ROOT, files).filter((edge) => !edge.external);

describe("constructs", () => {
  it("are read from the real tree", () => {
    expect(files).toEqual(expect.arrayContaining(["constructs/google/google-cell-fleet.ts", "constructs/aws/aws-cell-fleet.ts"]));
    expect(edges.some((edge) => edge.to === "lib/names/cloud-name-rules.ts")).toBe(true);
  });

  it("import nothing from the model or the renderers", () => {
    const reaching = edges.filter((edge) => edge.to.startsWith("lib/model/") || edge.to.startsWith("lib/render/"));
    expect(reaching.map((edge) => `${edge.from} -> ${edge.to}`)).toEqual([]);
  });
});
