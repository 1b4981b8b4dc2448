#!/usr/bin/env node
"use strict";
/**
 * Second half of `npm run build` (after tsc has type-checked and compiled dist/): one bundle per
 * command, dist/bundle/<command>.js with its source map, which bin/<command> runs.
 *
 * Why: most of a dry run was start-up. Node resolved, read and compiled ~1,000 files one by one
 * (our dist/ and node_modules); one file per command is read and compiled once, and bin/ can keep
 * V8's code cache for it (bin/load-command.js).
 *
 * Left outside the bundles, loaded from node_modules on the paths that use them: the cloud SDKs. They
 * are big, most runs never touch them, and the code loads them lazily; they are optional peer
 * dependencies, installed by the models repositories whose secret store needs one (lib/secrets/store-sdk.ts). GitLab's client (gitbeaker, and
 * undici, the HTTP client its requester sends with) is one bundle of its own, dist/bundle/gitlab-client.js,
 * that the command bundles load through bin/load-command.js on first use (lib/gitlab/load-client.ts keeps
 * that use inside a function): with its own code cache, instead of resolving, reading and compiling its
 * ~95 files from node_modules (a third of a node start's instructions, each time); one copy, not one
 * per command (the package's size).
 *
 * Debugging: NODE_OPTIONS=--enable-source-maps maps stack traces back to the TypeScript sources.
 */
const { readdirSync, readFileSync, rmSync, statSync, writeFileSync } = require("node:fs");
const { isBuiltin } = require("node:module");
const { dirname, join, relative } = require("node:path");
const esbuild = require("esbuild");
const { dropRedundantNames } = require("./drop-redundant-names");
const { precompiledTemplatesModule } = require("./precompile-templates");

const ROOT = join(__dirname, "..");
const OUT_DIR = join(ROOT, "dist", "bundle");

/** Packages kept out of the bundles (see above). */
const EXTERNAL = ["@aws-sdk/*", "@google-cloud/*"];

/** The packages of dist/bundle/gitlab-client.js, by the name its exports give each. */
const GITLAB_CLIENT_PACKAGES = { rest: "@gitbeaker/rest", requesterUtils: "@gitbeaker/requester-utils", undici: "undici" };
const GITLAB_CLIENT_BUNDLE = "gitlab-client";
const SYNTHESIS_BUNDLE = "synthesis";

/** esbuild plugin: in a command bundle, each of GITLAB_CLIENT_PACKAGES is its part of dist/bundle/gitlab-client.js. */
const gitlabClientBundle = {
  name: "gitlab-client-bundle",
  setup(build) {
    const byPackage = new Map(Object.entries(GITLAB_CLIENT_PACKAGES).map(([name, pkg]) => [pkg, name]));
    build.onResolve({ filter: /^(@gitbeaker\/rest|@gitbeaker\/requester-utils|undici)$/ }, (args) => ({ path: args.path, namespace: "gitlab-client" }));
    build.onLoad({ filter: /.*/, namespace: "gitlab-client" }, (args) => ({
      // Evaluated when the importing module is, which lib/gitlab/load-client.ts defers to the first client built.
      contents: `module.exports = require(__dirname + "/../../bin/load-command.js").loadBundle(__dirname + "/${GITLAB_CLIENT_BUNDLE}.js").${byPackage.get(args.path)};\n`,
      loader: "js",
    }));
  },
};

/**
 * Packages (and Node built-ins) loaded at start-up but called only on some paths, or none here, by the
 * importers they are replaced for, with a stand-in that loads the real one (a package bundled,
 * initialized on first use) when it is first used.
 */
const LOAD_ON_FIRST_USE = {
  // cdktf zips TerraformAsset directories with archiver (and its ~60 modules); no stack here has an asset.
  archiver: /[\\/]node_modules[\\/]cdktf[\\/]/,
  // Built-ins only some paths use, for the project's own modules (importers outside node_modules) and
  // commander (which spawns a program only for a subcommand that is one: none here). child_process
  // loads net, dgram and the streams with it: about 2 ms of every command's start, and a dry run
  // spawns nothing; nor does it ask at the terminal or start a thread for one cell.
  "node:child_process": /[\\/]node_modules[\\/]commander[\\/]|^(?!.*[\\/]node_modules[\\/])/,
  // cdktf runs a binary only to check a provider's version (validateBinaryVersion): never in synthesis here.
  child_process: /[\\/]node_modules[\\/]cdktf[\\/]/,
  "node:readline/promises": /^(?!.*[\\/]node_modules[\\/])/,
  "node:worker_threads": /^(?!.*[\\/]node_modules[\\/])/,
  // cdktf checks each resource with assert(condition, message), which passes: loading assert (with the
  // four internal modules it brings, ~0.5% of a dry run's instructions) waits for a check that fails
  // (CALLABLE_STAND_INS).
  assert: /[\\/]node_modules[\\/]cdktf[\\/]/,
};

/**
 * Built-ins whose export is itself called (`assert(value, message)`): the stand-in is a function. A call
 * whose value is truthy returns as the real one does, without loading it; any other call, and every
 * other property, goes to the real one (a falsy value or no argument at all throws as it would).
 */
const CALLABLE_STAND_INS = {
  assert: ["ok"],
};

/** The real package, bundled and loaded on first use (lib/process/loaded-on-first-use.ts). */
function packageStandIn(path) {
  return [
    `const { loadedOnFirstUse } = require("./lib/process/loaded-on-first-use.ts");`,
    `module.exports = loadedOnFirstUse(() => require(${JSON.stringify(path)}));`,
  ].join("\n");
}

/**
 * A getter for each of the built-in's exports (as the node that builds has them), each loading it on
 * first use: named imports read them at each use, and a namespace or default import copies getters.
 * A callable built-in (CALLABLE_STAND_INS) gets a function whose passing checks need no load.
 */
function builtinStandIn(name) {
  const passing = CALLABLE_STAND_INS[name];
  const keys = Object.keys(require(name)).filter((key) => !passing?.includes(key));
  const target = passing ? "module.exports" : "exports";
  return [
    `let real;`,
    `const load = () => (real ??= require(${JSON.stringify(name)}));`,
    ...(passing
      ? [
          `const passes = (call) => (...args) => (args.length > 0 && args[0] ? undefined : call(load())(...args));`,
          `module.exports = passes((real) => real);`,
          ...passing.map((key) => `module.exports.${key} = passes((real) => real.${key});`),
        ]
      : []),
    `for (const key of ${JSON.stringify(keys)}) Object.defineProperty(${target}, key, { enumerable: true, get: () => load()[key] });`,
  ].join("\n");
}

/** esbuild plugin: the LOAD_ON_FIRST_USE stand-ins. */
const loadOnFirstUse = {
  name: "load-on-first-use",
  setup(build) {
    const names = Object.keys(LOAD_ON_FIRST_USE);
    build.onResolve({ filter: new RegExp(`^(${names.join("|")})$`) }, async (args) => {
      // A stand-in's own require of the real one (its importer, by name, would match the rules above) is left alone.
      if (args.pluginData === "real" || args.namespace === "load-on-first-use" || !LOAD_ON_FIRST_USE[args.path].test(args.importer)) return undefined;
      // A built-in stays outside the bundle: its stand-in requires it by name.
      if (isBuiltin(args.path)) return { path: args.path, namespace: "load-on-first-use" };
      const real = await build.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, pluginData: "real" });
      if (real.errors.length > 0) return { errors: real.errors };
      // Relative: the bundle names no path of the machine that built it.
      return { path: relative(ROOT, real.path), namespace: "load-on-first-use" };
    });
    build.onLoad({ filter: /.*/, namespace: "load-on-first-use" }, (args) => ({
      contents: isBuiltin(args.path) ? builtinStandIn(args.path) : packageStandIn(`./${args.path}`),
      loader: "js",
      resolveDir: ROOT,
    }));
  },
};

/**
 * esbuild plugin: cdktf writes each stack's JSON and the manifest with json-stable-stringify, which
 * was a tenth of a dry run; in the bundles, lib/text/stable-json.ts writes the same text faster. A call
 * with more than `space` (none in cdktf) goes to the real package, bundled and loaded on first use.
 */
const stableJsonForCdktf = {
  name: "stable-json-for-cdktf",
  setup(build) {
    build.onResolve({ filter: /^json-stable-stringify$/ }, async (args) => {
      if (args.pluginData === "real" || !/[\\/]node_modules[\\/]cdktf[\\/]/.test(args.importer)) return undefined;
      const real = await build.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, pluginData: "real" });
      if (real.errors.length > 0) return { errors: real.errors };
      return { path: relative(ROOT, real.path), namespace: "stable-json-for-cdktf" };
    });
    build.onLoad({ filter: /.*/, namespace: "stable-json-for-cdktf" }, (args) => ({
      contents: [
        `const { stableStringifyOr } = require("./lib/text/stable-json.ts");`,
        `module.exports = stableStringifyOr(() => require(${JSON.stringify(`./${args.path}`)}));`,
      ].join("\n"),
      loader: "js",
      resolveDir: ROOT,
    }));
  },
};

/**
 * esbuild plugin: zod's `locales` namespace (its error messages in ~45 languages, ~300 KB of every
 * bundle) becomes English alone. zod itself configures English (zod/v4/classic/schemas.js imports
 * locales/en.js directly), the toolkit words its own messages, and nothing here reads `z.locales`:
 * a bundle that named another language would fail to build, not fall back.
 */
const zodEnglishOnly = {
  name: "zod-english-only",
  setup(build) {
    build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) => {
      if (!/[\\/]node_modules[\\/]zod[\\/]v4[\\/](core|classic)$/.test(args.resolveDir)) return undefined;
      // Relative: the bundle names no path of the machine that built it.
      return { path: relative(ROOT, join(args.resolveDir, "..", "locales", "english-only.js")), namespace: "zod-english-only" };
    });
    build.onLoad({ filter: /.*/, namespace: "zod-english-only" }, (args) => ({
      contents: `export { default as en } from "./en.js";\n`,
      loader: "js",
      resolveDir: join(ROOT, dirname(args.path)),
    }));
  },
};

/** Every template, precompiled by the engine tsc just built, as the module lib/templates/precompiled-templates.ts exports. */
function everyTemplatePrecompiled() {
  const { handlebars, COMPILE_OPTIONS } = require(join(ROOT, "dist", "lib", "templates", "template-engine.js"));
  return precompiledTemplatesModule(join(ROOT, "templates"), (source) => handlebars.precompile(source, COMPILE_OPTIONS));
}

/** esbuild plugin: lib/templates/precompiled-templates.ts becomes every template, precompiled. */
const precompiledTemplates = {
  name: "precompiled-templates",
  setup(build) {
    build.onLoad({ filter: /[\\/]lib[\\/]templates[\\/]precompiled-templates\.ts$/ }, () => ({ contents: everyTemplatePrecompiled(), loader: "js" }));
  },
};

/**
 * The compiled modules (a synthesis thread, the cdktf app entry, the bench) get every template
 * precompiled as well, in place of tsc's empty table: each thread compiled the templates it used
 * again (~70 ms). Its source map goes: the module is no longer what tsc wrote.
 */
function precompileTemplatesInDist() {
  const file = join(ROOT, "dist", "lib", "templates", "precompiled-templates.js");
  const text = everyTemplatePrecompiled();
  writeFileSync(file, text);
  rmSync(`${file}.map`, { force: true });
  return relative(ROOT, file);
}

/**
 * The license notes esbuild gathers at the end of a bundle quote their authors' names as written
 * (undici's: "Jimmy W\u00e4rting"). Written there as \uXXXX, so a bundle stays ASCII and bin/ can decode
 * it as latin1; after the last line of code, so no position the source map names moves.
 */
function asciiLicenseNotes(text) {
  const notes = text.lastIndexOf("/*! Bundled license information:");
  if (notes === -1) return text;
  return text.slice(0, notes) + text.slice(notes).replace(/[^\x00-\x7f]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** What every bundle of the project's own sources is built with (the command bundles add gitlabClientBundle). */
const SOURCE_PLUGINS = [loadOnFirstUse, stableJsonForCdktf, precompiledTemplates, zodEnglishOnly];

/** Each bin/<command> runs app/commands/<command>.ts. */
function commandNames() {
  return readdirSync(join(ROOT, "bin")).filter((name) => !name.includes(".") && statSync(join(ROOT, "bin", name)).isFile());
}

/** What a bundle's text opens and closes with (see SHARED_OPTIONS). */
const BUNDLE_HEAD =
  `(function (bundle) { return globalThis[Symbol.for("runner-fleet.bundle-loader")] ? bundle : bundle.call(exports, exports, require, module, __filename, __dirname); })(` +
  `function (exports, require, module, __filename, __dirname) {`;
const BUNDLE_TAIL = `});`;

/** The settings every bundle is built with. */
const SHARED_OPTIONS = {
  bundle: true,
  platform: "node",
  target: "node20",
  format: "cjs",
  external: EXTERNAL,
  // import() of an external SDK becomes require(): bin/ runs the bundle through vm.Script (for the code
  // cache), where import() would need an experimental loader.
  supported: { "dynamic-import": false },
  sourcemap: "linked",
  // The sources are in the checkout; the map only needs positions.
  sourcesContent: false,
  // Class and function names stay as written: they appear in errors and in cdktf's construct metadata.
  // (The calls that set a name a declaration already has are dropped afterwards: build/drop-redundant-names.js.)
  keepNames: true,
  // Smaller to read and parse at every start; the source map keeps traces readable.
  minifyWhitespace: true,
  minifySyntax: true,
  // The bundle is a CommonJS module body inside the function bin/load-command.js runs (what Node's own
  // wrapper would make of it), so the loader hands V8 the file's text as it is: wrapping it there made
  // a second string of the whole bundle, which V8 then copied flat (4 MB). Run by the loader (which
  // marks the moment with a global symbol) its value is that function; required plainly (with
  // --enable-source-maps, or by a test), the file calls it itself.
  banner: { js: BUNDLE_HEAD },
  footer: { js: BUNDLE_TAIL },
  logLevel: "warning",
};

async function bundle(command) {
  const outfile = join(OUT_DIR, `${command}.js`);
  await esbuild.build({
    // The bundle sets up a one-command process, and exports the command's module and the CLI entry that
    // runs it (bin/load-command.js).
    stdin: {
      contents: `import "./app/cli/one-shot-process";\nexport { main } from "./app/cli/run-command";\nexport * from "./app/commands/${command}";\n`,
      resolveDir: ROOT,
      sourcefile: `bin/${command}`,
      loader: "ts",
    },
    ...SHARED_OPTIONS,
    outfile,
    plugins: [...SOURCE_PLUGINS, gitlabClientBundle],
  });
  postProcess(outfile);
  return relative(ROOT, outfile);
}

/** Same length, so the source map written beside it stays exact (see build/drop-redundant-names.js); license notes in ASCII. */
function postProcess(outfile) {
  const text = dropRedundantNames(readFileSync(outfile, "utf8"));
  writeFileSync(outfile, asciiLicenseNotes(text), "utf8");
}

/**
 * dist/bundle/synthesis.js: synthesis (stacks/synthesize.ts), and, in a worker thread, a synthesis
 * thread (stacks/synthesize-thread.ts), which bin/synthesis-thread.js runs from it: a thread loads
 * one file instead of resolving, reading and compiling ~1,000 (~0.2 CPU-s a thread), with V8's code
 * cache. The bench runs its synthesis from it too, as the commands run theirs from their bundles.
 */
async function synthesis() {
  const outfile = join(OUT_DIR, `${SYNTHESIS_BUNDLE}.js`);
  await esbuild.build({
    stdin: {
      // runCdktfApp: the cdktf app entry runs from this bundle too (app/cdktf-app.ts).
      contents: `import "./stacks/synthesize-thread";\nexport { synthesizeCells, synthesizeModelFiles } from "./stacks/synthesize";\nexport { synthThreadCount } from "./stacks/synthesis-threads";\nexport { runCdktfApp } from "./app/cdktf-app-main";\n`,
      resolveDir: ROOT,
      sourcefile: `${SYNTHESIS_BUNDLE}.js`,
      loader: "ts",
    },
    ...SHARED_OPTIONS,
    outfile,
    plugins: SOURCE_PLUGINS,
  });
  postProcess(outfile);
  return relative(ROOT, outfile);
}

/** dist/bundle/gitlab-client.js: GitLab's client packages, exported by the names in GITLAB_CLIENT_PACKAGES. */
async function gitlabClient() {
  const outfile = join(OUT_DIR, `${GITLAB_CLIENT_BUNDLE}.js`);
  await esbuild.build({
    stdin: {
      contents: Object.entries(GITLAB_CLIENT_PACKAGES).map(([name, pkg]) => `export * as ${name} from ${JSON.stringify(pkg)};\n`).join(""),
      resolveDir: ROOT,
      sourcefile: `${GITLAB_CLIENT_BUNDLE}.js`,
      loader: "js",
    },
    ...SHARED_OPTIONS,
    outfile,
  });
  postProcess(outfile);
  return relative(ROOT, outfile);
}

async function main() {
  rmSync(OUT_DIR, { recursive: true, force: true });
  const written = await Promise.all([...commandNames().map(bundle), gitlabClient(), synthesis()]);
  process.stdout.write(`bundled ${written.join(", ")}; precompiled the templates into ${precompileTemplatesInDist()}\n`);
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
