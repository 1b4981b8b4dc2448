/**
 * The command bundles carry every template precompiled (build/precompile-templates.js). Rendered
 * through those precompiled templates, the example cells' files and the child pipelines read
 * exactly as when each template is compiled on first use, and nothing is compiled at run time; an
 * entry whose source no longer matches its file is compiled from the file instead. The compiled
 * modules of dist/ (a synthesis thread, the cdktf app entry) carry them too.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import type * as TemplateEngine from "../../lib/templates/template-engine";
import type * as RenderedFiles from "../../lib/render/rendered-files";
import type * as ChildPipeline from "../../lib/ci/child-pipeline";
import type { PrecompiledTemplate } from "../../lib/templates/precompiled-templates";
import { exampleModel } from "../support/models";

const { precompiledTemplatesModule } = require("../../build/precompile-templates") as {
  precompiledTemplatesModule: (templatesDir: string, precompile: (source: string) => string) => string;
};

const TEMPLATES_DIR = join(__dirname, "..", "..", "templates");

interface Modules {
  engine: typeof TemplateEngine;
  files: typeof RenderedFiles;
  pipeline: typeof ChildPipeline;
}

/** Fresh modules, with lib/templates/precompiled-templates replaced by `precompiled` when given (as the bundles replace it). */
function loadModules(precompiled?: Record<string, PrecompiledTemplate>): Modules {
  let modules: Modules | undefined;
  jest.isolateModules(() => {
    if (precompiled) jest.doMock("../../lib/templates/precompiled-templates", () => ({ PRECOMPILED_TEMPLATES: precompiled }));
    else jest.dontMock("../../lib/templates/precompiled-templates");
    modules = {
      engine: require("../../lib/templates/template-engine"),
      files: require("../../lib/render/rendered-files"),
      pipeline: require("../../lib/ci/child-pipeline"),
    };
  });
  return modules!;
}

/** What the build generates, evaluated as the bundle would. */
function buildPrecompiled(): Record<string, PrecompiledTemplate> {
  const { engine } = loadModules();
  // precompile returns JavaScript source text (its type says TemplateSpecification, what evaluating it gives).
  const source = precompiledTemplatesModule(TEMPLATES_DIR, (text) => String(engine.handlebars.precompile(text, engine.COMPILE_OPTIONS)));
  const exports: { PRECOMPILED_TEMPLATES?: Record<string, PrecompiledTemplate> } = {};
  new Function("exports", source)(exports);
  return exports.PRECOMPILED_TEMPLATES!;
}

function renderAll({ files, pipeline }: Modules): unknown {
  return {
    cells: (["cell-1", "cell-2"] as const).map((name) => files.renderedFilesForCell(exampleModel(name))),
    pipelines: [
      pipeline.renderChildPipeline({ mode: "plan", cells: ["cell-1", "cell-2"], removed: ["cell-9"], base: "main" }),
      pipeline.renderChildPipeline({ mode: "apply", cells: ["cell-1"], base: "main", applyMode: "manual" }),
      pipeline.renderChildPipeline({ mode: "drift", cells: [], base: "main" }),
    ],
  };
}

afterEach(() => jest.restoreAllMocks());

test("the build precompiles every template under templates/", () => {
  expect(Object.keys(buildPrecompiled()).sort()).toEqual([
    "ci/cells.gitlab-ci.yml.hbs",
    "config.toml.hbs",
    "init/README.md.hbs",
    "init/gitlab-ci.yml.hbs",
    "init/model-aws.yaml.hbs",
    "init/model-google.yaml.hbs",
    "startup/payload.sh.hbs",
  ]);
});

test("precompiled templates render what compiling on first use renders, and nothing is compiled", () => {
  const precompiled = buildPrecompiled();
  const compiledOnFirstUse = renderAll(loadModules());

  const modules = loadModules(precompiled);
  const compile = jest.spyOn(modules.engine.handlebars, "compile");
  const rendered = renderAll(modules);

  expect(compile).not.toHaveBeenCalled();
  expect(rendered).toEqual(compiledOnFirstUse);
  expect(JSON.stringify(rendered)).toContain("concurrent = ");
});

test("an entry whose source differs from the template file is not used: the file is compiled", () => {
  const precompiled = buildPrecompiled();
  const stale = { ...precompiled, "config.toml.hbs": { ...precompiled["config.toml.hbs"], source: "concurrent = 1\n" } };
  const modules = loadModules(stale);
  const compile = jest.spyOn(modules.engine.handlebars, "compile");

  renderAll(modules);

  expect(compile.mock.calls.map(([source]) => source)).toEqual([precompiled["config.toml.hbs"].source]);
});

/** In a child node, dist/'s compiled modules render both examples' files, counting compiles. */
const RENDER_IN_DIST = `
  const [dist, modelsDir] = process.argv.slice(1);
  const { handlebars } = require(dist + "/lib/templates/template-engine.js");
  let compiled = 0;
  const compile = handlebars.compile;
  handlebars.compile = (...args) => (compiled++, compile.apply(handlebars, args));
  const { loadModelFile } = require(dist + "/lib/model/load.js");
  const { renderedFilesForCell } = require(dist + "/lib/render/rendered-files.js");
  const cells = ["cell-1", "cell-2"].map((name) => renderedFilesForCell(loadModelFile(modelsDir + "/" + name + ".yaml").model));
  process.stdout.write(JSON.stringify({ compiled, cells }));
`;

test("dist/'s compiled modules render with every template precompiled: the same files, nothing compiled", () => {
  const root = join(__dirname, "..", "..");
  const run = spawnSync(process.execPath, ["-e", RENDER_IN_DIST, join(root, "dist"), join(root, "models")], { encoding: "utf8" });
  expect(run.stderr).toBe("");
  const { compiled, cells } = JSON.parse(run.stdout) as { compiled: number; cells: unknown };
  expect(compiled).toBe(0);
  const { files } = loadModules();
  expect(cells).toEqual((["cell-1", "cell-2"] as const).map((name) => files.renderedFilesForCell(exampleModel(name))));
});
