/** docs/reference/model.md is what models/schema.json renders today: the reference cannot drift from the schema. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "../support/cli";

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { currentModelReference, renderModelReference } = require(join(REPO_ROOT, "build", "model-reference.js")) as {
  currentModelReference: () => string;
  renderModelReference: (schema: unknown, examples: { file: string; model: unknown }[]) => string;
};

test("docs/reference/model.md is rendered from the current schema (npm run docs:model-reference writes it)", () => {
  expect(readFileSync(join(REPO_ROOT, "docs", "reference", "model.md"), "utf8")).toBe(currentModelReference());
});

test("lists every key with its type, default, description and the examples' value, by the variant an example takes", () => {
  const schema = {
    properties: {
      cloud: {
        description: "Where.",
        anyOf: [
          { type: "object", properties: { provider: { const: "google" }, zones: { type: "array", items: { type: "string" }, description: "Zones." } }, required: ["provider"] },
          { type: "object", properties: { provider: { const: "aws" }, region: { type: "string", description: "Region." } }, required: ["provider", "region"] },
        ],
      },
      shards: {
        type: "array",
        items: { type: "object", properties: { idle_time: { type: "string", pattern: "^([0-9]*(\\.[0-9]*)?(ns|us|\u00b5s|ms|s|m|h))+$", default: "20m", description: "Idle | time." } } },
      },
    },
    required: ["cloud"],
  };
  const page = renderModelReference(schema, [
    { file: "a.yaml", model: { cloud: { provider: "google" }, shards: [{ idle_time: "5m" }] } },
    { file: "b.yaml", model: { cloud: { provider: "aws", region: "eu-west-1" } } },
  ]);
  expect(page).toContain("| `cloud` | object, one of 2 forms | **required** |  |  |");
  expect(page).toContain('| `cloud.provider` (provider: aws) | "aws" | **required** |  | `"aws"` |');
  expect(page).toContain('| `cloud.region` (provider: aws) | string | **required** | Region. | `"eu-west-1"` |');
  expect(page).toContain('| `shards[].idle_time` | string (Go duration, such as "20m" or "1h30m") | `"20m"` | Idle \\| time. | `"5m"` |');
});
