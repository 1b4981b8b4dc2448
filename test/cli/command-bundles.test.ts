/**
 * bin/* run one bundle per command (build/bundle-commands.js). A dry run through the real
 * bin/provision loads neither GitLab's client nor a cloud SDK (the SDKs stay outside the bundles,
 * GitLab's client is inside them but initialized only on the paths that build one), renders with
 * the bundle's precompiled templates exactly what the sources render, and the bundles stay
 * debuggable: with --enable-source-maps a stack trace names the TypeScript source.
 *
 * What a process loaded is recorded by test/support/record-loaded-modules.js. That `--help` of every
 * command loads neither is checked where --help runs through each real bin/* already
 * (test/commands/conventions.test.ts): one process per command proves both.
 */
import { spawnSync, type SpawnSyncReturns } from "node:child_process";
import { isAscii } from "node:buffer";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { renderedFilesForCell } from "../../lib/render/rendered-files";
import { REPO_ROOT } from "../support/cli";
import { exampleModel } from "../support/models";

// eslint-disable-next-line @typescript-eslint/no-require-imports
const packageStringify = require("cdktf/node_modules/json-stable-stringify") as (value: unknown, options: { space: number }) => string;

const RECORD_LOADED_MODULES = join(REPO_ROOT, "test", "support", "record-loaded-modules.js");
/** The built-ins the recorder watches for: undici and gitbeaker load them as they initialize. */
const GITLAB_CLIENT_BUILTINS = ["http", "http2", "zlib"];

/** Script line that records, and prints at exit, the GitLab client's built-ins and the SDK modules a process loaded. */
const RECORD_GITLAB_CLIENT_BUILTINS = `require(${JSON.stringify(RECORD_LOADED_MODULES)});`;

/**
 * A dry run through bin/provision with every probe the tests below read, each printing one line on stderr at exit:
 * the GitLab client's built-ins and the SDK modules it loaded; code compiled at run time (new Function: the
 * templates come precompiled and zod runs jitless); stack traces formatted (V8 calls Error.prepareStackTrace for
 * each); Intl formatters built (localeCompare builds a collator on its first call); built-ins it does not use
 * (cdktf's assert among them: its checks pass).
 */
const UNUSED_BUILTINS = ["child_process", "readline/promises", "worker_threads", "assert"];
const probedDryRun = (out: string) => `${RECORD_GITLAB_CLIENT_BUILTINS}
  const compiled = [];
  globalThis.Function = new Proxy(Function, {
    construct: (target, args) => (compiled.push(String(args.at(-1)).slice(0, 60)), Reflect.construct(target, args)),
    apply: (target, self, args) => (compiled.push(String(args.at(-1)).slice(0, 60)), Reflect.apply(target, self, args)),
  });
  let formatted = 0;
  Error.prepareStackTrace = (error, frames) => (formatted++, String(error) + frames.map((frame) => "\\n    at " + frame).join(""));
  const built = [];
  for (const name of ["DateTimeFormat", "NumberFormat", "Collator", "PluralRules"]) {
    Intl[name] = new Proxy(Intl[name], {
      construct: (target, args) => (built.push(name), Reflect.construct(target, args)),
      apply: (target, self, args) => (built.push(name), Reflect.apply(target, self, args)),
    });
  }
  const localeCompare = String.prototype.localeCompare;
  String.prototype.localeCompare = function (...args) { built.push("localeCompare"); return localeCompare.apply(this, args); };
  const Module = require("node:module");
  const asked = new Set();
  const load = Module._load;
  Module._load = function (request, ...rest) {
    if (Module.isBuiltin(request)) asked.add(request.replace(/^node:/, ""));
    return load.call(this, request, ...rest);
  };
  let stdinRead = false;
  const stdin = Object.getOwnPropertyDescriptor(process, "stdin");
  Object.defineProperty(process, "stdin", { configurable: true, enumerable: stdin.enumerable, get() { stdinRead = true; return stdin.get.call(process); } });
  process.argv = [process.argv[0], "provision", "--model", "cell-1.yaml", "--dry-run", "--out", ${JSON.stringify(out)}];
  process.on("exit", () => process.stderr.write(
    "compiled at run time: " + JSON.stringify(compiled) + "\\n" +
    "stack traces formatted: " + formatted + "\\nIntl formatters built: " + JSON.stringify(built) + "\\n" +
    "built-ins loaded: " + JSON.stringify(${JSON.stringify(UNUSED_BUILTINS)}.filter((name) => asked.has(name))) + "\\n" +
    "stdin read: " + stdinRead + "\\n"));
  require("./bin/provision");
`;

// Two runs of the probed dry run, the bash -n verdicts kept under XDG_CACHE_HOME: the first checks the
// scripts with bash (no verdicts yet), the second reuses the first one's verdicts.
describe("a dry run through bin/provision, first without bash -n verdicts, then with the first run's", () => {
  let out: string;
  let runs: SpawnSyncReturns<string>[];
  beforeAll(() => {
    out = mkdtempSync(join(tmpdir(), "bundle-dry-run-"));
    const env = { ...process.env, XDG_CACHE_HOME: join(out, "cache") };
    runs = [1, 2].map(() => spawnSync(process.execPath, ["-e", probedDryRun(out)], { cwd: REPO_ROOT, encoding: "utf8", env, timeout: 60_000 }));
    for (const run of runs) {
      expect(run.status).toBe(0);
      expect(run.stdout).toContain(`cell-1: dry run: nothing was created; Terraform JSON in ${join(out, "stacks", "cell-1")}`);
    }
  }, 120_000);
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  test("loads no GitLab client and no cloud SDK, compiles no code at run time, renders what the sources render and writes cdktf's JSON as cdktf does", () => {
    for (const run of runs) {
      expect(run.stderr).toContain("SDK modules loaded: []\n");
      expect(run.stderr).toContain("GitLab client built-ins: []\n");
      expect(run.stderr).toContain("compiled at run time: []\n");
    }
    // The bundle writes cdktf's JSON with lib/text/stable-json.ts: the text json-stable-stringify writes.
    for (const file of [join(out, "stacks", "cell-1", "cdk.tf.json"), join(out, "manifest.json")]) {
      const text = readFileSync(file, "utf8");
      expect(text).toBe(packageStringify(JSON.parse(text), { space: 2 }));
    }
    const expected = renderedFilesForCell(exampleModel("cell-1"));
    expect(expected.length).toBeGreaterThan(2);
    for (const file of expected) {
      expect({ path: file.path, content: readFileSync(join(out, "stacks", "cell-1", "rendered", file.path), "utf8") }).toEqual({ path: file.path, content: file.content });
    }
  });

  test("formats no stack trace and builds no Intl formatter (V8 would find every line end of the 4 MB bundle, ICU would load its locale data)", () => {
    for (const run of runs) {
      expect(run.stderr).toContain("stack traces formatted: 0\nIntl formatters built: []\n");
      expect(run.stdout).toContain("month at idle");
    }
  });

  test("built-ins it does not use load on first use: spawning bash -n (a first run) loads child_process, a second run loads none", () => {
    expect(runs[0].stderr).toContain('built-ins loaded: ["child_process"]\n');
    expect(runs[1].stderr).toContain("built-ins loaded: []\n");
    expect(runs[1].stdout).toBe(runs[0].stdout);
  });

  test("makes no stdin stream: nothing is asked, and process.stdin would open a socket or a file stream for nothing", () => {
    for (const run of runs) expect(run.stderr).toContain("stdin read: false\n");
  });
});

test("the checks above see an SDK, and GitLab's client, once one is loaded", () => {
  const script = `${RECORD_GITLAB_CLIENT_BUILTINS}
    require("./dist/bundle/provision.js");
    require(require.resolve("@aws-sdk/client-ssm", { paths: [${JSON.stringify(join(REPO_ROOT, "dist", "bundle"))}] }));
  `;
  const result = spawnSync(process.execPath, ["-e", script], { cwd: REPO_ROOT, encoding: "utf8", timeout: 60_000 });
  expect(result.stderr).toMatch(/^SDK modules loaded: \[".*[\\/]node_modules[\\/]@aws-sdk[\\/]client-ssm[\\/].*\]$/m);

  // The same versions of gitbeaker and undici the bundles hold, loaded beside the onboard bundle.
  const client = `${RECORD_GITLAB_CLIENT_BUILTINS}
    require("./dist/bundle/onboard.js");
    for (const name of ["undici", "@gitbeaker/rest"]) require(require.resolve(name, { paths: [${JSON.stringify(join(REPO_ROOT, "dist", "bundle"))}] }));
  `;
  const loaded = spawnSync(process.execPath, ["-e", client], { cwd: REPO_ROOT, encoding: "utf8", timeout: 60_000 });
  expect(loaded.stderr).toContain(`GitLab client built-ins: ${JSON.stringify(GITLAB_CLIENT_BUILTINS)}\n`);
});

test("with --enable-source-maps a stack trace from a bundle names the TypeScript source", () => {
  const script = `
    const { formatProvisionResult } = require("./dist/bundle/provision.js");
    try { formatProvisionResult(undefined); } catch (error) { console.log(error.stack); }
  `;
  const result = spawnSync(process.execPath, ["--enable-source-maps", "-e", script], { cwd: REPO_ROOT, encoding: "utf8", timeout: 60_000 });
  expect(result.stdout).toMatch(/^TypeError: /);
  expect(result.stdout).toMatch(/\bapp\/provision\/provision-result\.ts:\d+:\d+/);
});

test("every bundle is ASCII, so bin/ decodes it as latin1 (several times faster than UTF-8)", () => {
  const dir = join(REPO_ROOT, "dist", "bundle");
  const bundles = readdirSync(dir).filter((name) => name.endsWith(".js"));
  expect(bundles.length).toBeGreaterThanOrEqual(5);
  // A character beyond ASCII in a regular expression is kept as written: write it as \uXXXX.
  expect(bundles.filter((name) => !isAscii(readFileSync(join(dir, name))))).toEqual([]);
});

test("a bundle carries zod's English messages and no other language's (build/bundle-commands.js zodEnglishOnly)", () => {
  const dir = join(REPO_ROOT, "dist", "bundle");
  for (const name of ["provision.js", "prepare.js", "synthesis.js"]) {
    const { sources } = JSON.parse(readFileSync(join(dir, `${name}.map`), "utf8")) as { sources: string[] };
    const locales = sources.filter((source) => /node_modules\/zod\/v4\/locales\//.test(source)).map((source) => source.replace(/.*\/locales\//, ""));
    // english-only.js: the plugin's stand-in for locales/index.js, which names en.js alone.
    expect({ name, locales }).toEqual({ name, locales: ["en.js", "english-only.js"] });
  }
});

test("the suite loads zod as the bundles have it, with English alone (test/support/zod-english-only.js), and its messages in English", () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { z } = require("zod") as typeof import("zod");
  // Had zod's own index of ~45 languages loaded (a moved file, a changed name), this would list them all.
  expect(Object.keys(z.locales)).toEqual(["en"]);
  expect(z.string().safeParse(12).error?.issues[0].message).toBe("Invalid input: expected string, received number");
});
