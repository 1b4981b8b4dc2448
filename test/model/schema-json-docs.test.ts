/**
 * What an editor shows while someone writes a model: every key explained, and the value the
 * loader fills in when a key is left out given as JSON Schema `default` (not as text in the hover).
 */
import { runnerModelJsonSchema } from "../../lib/model/json-schema";
import { runnerModelSchema } from "../../lib/model/schema";

type Node = Record<string, unknown>;

/** Every property of the schema with its path, through unions, arrays and records. */
function properties(node: Node, path = ""): Array<{ path: string; node: Node }> {
  const found: Array<{ path: string; node: Node }> = [];
  for (const [key, child] of Object.entries((node.properties ?? {}) as Record<string, Node>)) {
    found.push({ path: `${path}.${key}`, node: child }, ...properties(child, `${path}.${key}`));
  }
  for (const variants of [node.oneOf, node.anyOf]) {
    (variants as Node[] | undefined)?.forEach((variant, index) => found.push(...properties(variant, `${path}<${index}>`)));
  }
  if (node.items && typeof node.items === "object") found.push(...properties(node.items as Node, `${path}[]`));
  return found;
}

/** The schema node of a value: a union's variant is the one whose `const` discriminator matches the value. */
function variantFor(node: Node, value: unknown): Node {
  const variants = (node.oneOf ?? node.anyOf) as Node[] | undefined;
  if (!variants || typeof value !== "object" || value === null) return node;
  const record = value as Record<string, unknown>;
  const match = variants.find((variant) =>
    Object.entries((variant.properties ?? {}) as Record<string, Node>).every(
      ([key, property]) => property.const === undefined || property.const === record[key],
    ),
  );
  return match ?? node;
}

/** Keys the loader added to `input`, with the schema node that documents each. */
function filledIn(schema: Node, input: unknown, output: unknown, path = ""): Array<{ path: string; node: Node; value: unknown }> {
  const node = variantFor(schema, output);
  if (Array.isArray(output)) {
    const items = node.items as Node | undefined;
    if (!items || !Array.isArray(input)) return [];
    return output.flatMap((item, index) => filledIn(items, input[index], item, `${path}[${index}]`));
  }
  if (typeof output !== "object" || output === null) return [];
  const given = (input ?? {}) as Record<string, unknown>;
  const found: Array<{ path: string; node: Node; value: unknown }> = [];
  for (const [key, value] of Object.entries(output)) {
    const child = ((node.properties ?? {}) as Record<string, Node>)[key];
    if (!child) continue;
    const missing = !(key in given);
    if (missing) found.push({ path: `${path}.${key}`, node: child, value });
    // A key left out takes its default as a whole; below it, only what that default leaves out is filled in again.
    found.push(...filledIn(child, missing ? child.default : given[key], value, `${path}.${key}`));
  }
  return found;
}

const minimalModels = {
  google: {
    cell: { id: "cell-9" },
    gitlab: { url: "https://gitlab.example.com" },
    cloud: { provider: "google", project: "runner-fleet-9", region: "europe-west4", zones: ["europe-west4-a"] },
    shards: [
      {
        name: "small",
        managers: { machine_type: "e2-standard-2", runner_version: "19.5.0" },
        workers: { machine_type: "e2-standard-4", max_instances: 5 },
      },
    ],
  },
  aws: {
    cell: { id: "cell-9" },
    gitlab: { url: "https://gitlab.example.com" },
    cloud: { provider: "aws", region: "eu-west-1", availability_zones: ["eu-west-1a"] },
    state: { backend: "s3", bucket: "fleet-state", region: "eu-west-1" },
    shards: [
      {
        name: "small",
        managers: { machine_type: "t3.medium", runner_version: "19.5.0" },
        workers: { machine_type: "t3.large", max_instances: 5 },
        autoscaling: { policies: [{ idle_count: 2 }] },
      },
    ],
  },
};

describe("models/schema.json documents every key", () => {
  const schema = runnerModelJsonSchema();
  const all = properties(schema);

  it("walks the whole schema (about 100 keys, not a handful)", () => {
    expect(all.length).toBeGreaterThanOrEqual(100);
  });

  it("gives every key a description", () => {
    const undescribed = all.filter(({ node }) => typeof node.description !== "string" || node.description.trim() === "");
    expect(undescribed.map(({ path }) => path)).toEqual([]);
  });

  it("keeps defaults out of the description text", () => {
    const tagged = all.filter(({ node }) => String(node.description).includes("@default"));
    expect(tagged.map(({ path }) => path)).toEqual([]);
  });

  it.each(Object.entries(minimalModels))("gives every value the loader fills into a minimal %s model as a JSON Schema default", (_cloud, model) => {
    const filled = filledIn(schema, model, runnerModelSchema.parse(model));
    expect(filled.length).toBeGreaterThan(20);
    const undocumented = filled.filter(({ node }) => !("default" in node)).map(({ path }) => path);
    expect(undocumented).toEqual([]);
    // Plain values must be the very value the loader uses; objects may leave out what their own keys default.
    const wrong = filled
      .filter(({ node, value }) => (typeof value !== "object" || Array.isArray(value)) && JSON.stringify(node.default) !== JSON.stringify(value))
      .map(({ path, node, value }) => `${path}: schema ${JSON.stringify(node.default)}, loader ${JSON.stringify(value)}`);
    expect(wrong).toEqual([]);
  });
});
