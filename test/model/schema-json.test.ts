import { readFileSync } from "node:fs";
import { join } from "node:path";
import Ajv2020 from "ajv/dist/2020";
import { parse } from "yaml";
import { runnerModelJsonSchemaText } from "../../lib/model/json-schema";
import { MODELS_DIR } from "../support/models";

describe("models/schema.json", () => {
  it("is up to date with the zod schema (run ./bin/prepare to refresh it)", () => {
    expect(readFileSync(join(MODELS_DIR, "schema.json"), "utf8")).toBe(runnerModelJsonSchemaText());
  });

  it.each(["cell-1.yaml", "cell-2.yaml"])("accepts %s, as an editor would check it", (name) => {
    const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
    const validate = ajv.compile(JSON.parse(runnerModelJsonSchemaText()));
    const valid = validate(parse(readFileSync(join(MODELS_DIR, name), "utf8")));
    expect(validate.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
  });

  it("rejects unknown keys, as the loader does", () => {
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    const validate = ajv.compile(JSON.parse(runnerModelJsonSchemaText()));
    const model = parse(readFileSync(join(MODELS_DIR, "cell-2.yaml"), "utf8"));
    model.shards[0].workers.max_instance = 3;
    expect(validate(model)).toBe(false);
  });
});
