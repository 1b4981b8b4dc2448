"use strict";
/**
 * The module that stands in for lib/templates/precompiled-templates.ts in the command bundles: every
 * templates/**\/*.hbs, precompiled. Compiling the templates at run time was a good part of a dry
 * run's time; lib/templates/template-engine.ts uses an entry while the template file still reads the same.
 */
const { readdirSync, readFileSync } = require("node:fs");
const { join, relative, sep } = require("node:path");

function templateFiles(dir) {
  return readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((entry) => (entry.isDirectory() ? templateFiles(join(dir, entry.name)) : entry.name.endsWith(".hbs") ? [join(dir, entry.name)] : []));
}

/**
 * CommonJS source exporting PRECOMPILED_TEMPLATES. `precompile(source)` returns Handlebars'
 * template specification as JavaScript (handlebars.precompile with the engine's COMPILE_OPTIONS).
 */
function precompiledTemplatesModule(templatesDir, precompile) {
  const entries = templateFiles(templatesDir).map((file) => {
    const path = relative(templatesDir, file).split(sep).join("/");
    const source = readFileSync(file, "utf8");
    return `  ${JSON.stringify(path)}: { source: ${JSON.stringify(source)}, spec: ${precompile(source)} },`;
  });
  return `"use strict";\nexports.PRECOMPILED_TEMPLATES = {\n${entries.join("\n")}\n};\n`;
}

module.exports = { precompiledTemplatesModule };
