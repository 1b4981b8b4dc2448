import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import Ajv from "ajv";
import { parse } from "yaml";
import { renderChildPipeline } from "../../lib/ci/child-pipeline";
import { pipelineYaml, resolvePipeline, resolvePipelineText } from "../../lib/ci/gitlab-ci/include";

const ROOT = join(__dirname, "..", "..");
const schema = JSON.parse(readFileSync(join(ROOT, "test", "fixtures", "gitlab-ci.schema.json"), "utf8")) as Record<string, unknown>;

// GitLab's CI schema is draft-07 (its "$schema"), which is Ajv's default dialect.
const ajv = new Ajv({ strict: false, allErrors: true, logger: false });
const validate = ajv.compile(schema);

function problems(yamlText: string): string[] {
  const document = parse(yamlText) as unknown;
  return validate(document) ? [] : (validate.errors ?? []).map((error) => `${error.instancePath} ${error.message}`);
}

type Job = Record<string, any>;

describe("pipelines validate against GitLab's CI schema", () => {
  it("uses the draft-07 schema the test assumes", () => {
    expect(schema.$schema).toBe("http://json-schema.org/draft-07/schema#");
  });

  it("rejects a broken pipeline (the validator can fail)", () => {
    expect(problems("build:\n  scirpt: [make]\n  script: 42\n")).not.toEqual([]);
  });

  it("accepts .gitlab-ci.yml", () => {
    expect(problems(readFileSync(join(ROOT, ".gitlab-ci.yml"), "utf8"))).toEqual([]);
  });

  it("accepts the pipeline .gitlab-ci.yml makes with the component it includes", () => {
    expect(problems(resolvePipeline(ROOT))).toEqual([]);
  });

  it.each([
    ["its defaults", ""],
    ["other inputs", "    inputs:\n      engine: tofu\n      apply_mode: manual\n      prepare_stage: validate\n      cells_stage: runner cells\n      models_dir: infra/models\n"],
  ])("accepts the pipeline a models repository gets from the component with %s", (_name, inputs) => {
    expect(problems(pipelineYaml(resolvePipelineText(ROOT, `include:\n  - local: templates/runner-fleet.yml\n${inputs}`)))).toEqual([]);
  });

  it("accepts a child pipeline that runs the installed toolkit", () => {
    const toolkit = { command: "npx --no-install runner-fleet", dir: "node_modules/runner-fleet" };
    expect(problems(renderChildPipeline({ mode: "apply", cells: ["cell-1"], removed: ["cell-9"], base: "0123abcd", toolkit }))).toEqual([]);
  });

  const templates = readdirSync(join(ROOT, "templates", "ci")).filter((name) => /\.ya?ml$/.test(name));
  it.each(templates)("accepts templates/ci/%s", (name) => {
    expect(problems(readFileSync(join(ROOT, "templates", "ci", name), "utf8"))).toEqual([]);
  });

  it.each([
    ["plan", ["cell-1", "cell-2"], ["cell-9"]],
    ["apply", ["cell-1"], []],
    ["plan", [], []],
    ["apply", [], ["cell-9"]],
    ["drift", ["cell-1", "cell-2"], []],
    ["drift", [], []],
  ] as const)("accepts a generated child pipeline (%s, cells %j, removed %j)", (mode, cells, removed) => {
    expect(problems(renderChildPipeline({ mode, cells, removed, base: "0123abcd" }))).toEqual([]);
  });

  it("accepts an apply child pipeline of a rollout in waves (needs, gates, manual promote jobs, timeout)", () => {
    const waves = [
      { name: "canary", cells: ["cell-1"], manual: false },
      { name: "rest", cells: ["cell-2", "cell-3"], manual: false },
    ];
    const yaml = renderChildPipeline({ mode: "apply", cells: ["cell-1", "cell-2", "cell-3"], base: "0123abcd", waves });
    expect(yaml).toContain("gate:canary");
    expect(problems(yaml)).toEqual([]);
  });

  it("accepts a generated apply child pipeline in manual mode", () => {
    expect(problems(renderChildPipeline({ mode: "apply", cells: ["cell-1"], base: "0123abcd", applyMode: "manual" }))).toEqual([]);
  });
});

describe("the generated child pipeline", () => {
  it("plans each changed cell in its own job, keeping plan and summary as artifacts", () => {
    const pipeline = parse(renderChildPipeline({ mode: "plan", cells: ["cell-2", "cell-1"], base: "main" })) as Record<string, Job>;

    expect(Object.keys(pipeline).filter((key) => !key.startsWith(".") && key !== "stages" && key !== "workflow")).toEqual(["plan:cell-1", "plan:cell-2"]);
    expect(pipeline["plan:cell-1"].script).toEqual([
      "./bin/provision --model cell-1 --plan --skip-onboard --out plan-out/cell-1 --markdown plan-cell-1.md --terraform-report plan-cell-1.tfreport.json --post --json > plan-cell-1.json",
    ]);
    expect(pipeline["plan:cell-1"].artifacts.paths).toEqual(["plan-cell-1.json", "plan-cell-1.md", "plan-out/cell-1/"]);
    expect(pipeline["plan:cell-1"].resource_group).toBeUndefined();
  });

  it("applies each changed cell behind the cell's resource group, then checks its runners are online", () => {
    const pipeline = parse(renderChildPipeline({ mode: "apply", cells: ["cell-1"], base: "main" })) as Record<string, Job>;

    expect(pipeline["apply:cell-1"]).toMatchObject({ resource_group: "runner-fleet-cell-1" });
    expect(pipeline["apply:cell-1"].script.at(-1)).toBe("./bin/onboard --model cell-1 --status --require-online");
  });

  it("has a single no-op job when no cell changed", () => {
    const pipeline = parse(renderChildPipeline({ mode: "apply", cells: [], base: "abc123" })) as Record<string, Job>;

    const jobs = Object.keys(pipeline).filter((key) => !key.startsWith(".") && key !== "stages" && key !== "workflow");
    expect(jobs).toEqual(["no-cell-to-apply"]);
    expect(pipeline["no-cell-to-apply"].script[0]).toContain("nothing to apply");
  });

  it("lists deleted models in a warning job and never destroys them", () => {
    const text = renderChildPipeline({ mode: "apply", cells: [], removed: ["cell-9"], base: "abc123" });
    const pipeline = parse(text) as Record<string, Job>;

    expect(pipeline["removed-models"]).toMatchObject({ allow_failure: true });
    expect(pipeline["removed-models"].script[0]).toContain("NOT destroyed");
    expect(text).not.toMatch(/provision --model cell-9 --destroy"?\s*$/m);
  });

  it("fails when a cell name could inject YAML or shell", () => {
    expect(() => renderChildPipeline({ mode: "plan", cells: ["cell-1; rm -rf /"], base: "main" })).toThrow(/not a DNS label/);
  });
});
