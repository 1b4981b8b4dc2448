/**
 * ci/build-checkout.sh, as the component's jobs and the child jobs run it after `npm ci`: it builds the
 * toolkit's own checkout (this repository's pipeline, toolkit_dir "."), whose bin/ runs dist/ and whose
 * `npm ci` no longer builds (package.json has prepack, not prepare), and does nothing for the package a
 * models repository installed. npm is a stand-in on the PATH that records where and how it was run.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { renderChildPipeline } from "../../lib/ci/child-pipeline";
import { validatorPath } from "../support/validators";

const ROOT = join(__dirname, "..", "..");
const SCRIPT = join(ROOT, "ci", "build-checkout.sh");

let root: string;
let env: NodeJS.ProcessEnv;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "build-checkout-"));
  mkdirSync(join(root, "bin"));
  const npm = join(root, "bin", "npm");
  writeFileSync(npm, `#!/bin/sh\necho "$PWD $*" >> ${JSON.stringify(join(root, "npm-calls"))}\n`);
  chmodSync(npm, 0o755);
  env = { ...process.env, PATH: `${join(root, "bin")}:${process.env.PATH ?? ""}` };
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

/** `dir` with the script in its ci/, and a tsconfig.json when it is a checkout (the package ships none). */
function toolkitAt(dir: string, checkout: boolean): void {
  mkdirSync(join(dir, "ci"), { recursive: true });
  copyFileSync(SCRIPT, join(dir, "ci", "build-checkout.sh"));
  if (checkout) writeFileSync(join(dir, "tsconfig.json"), "{}\n");
}

test("builds the toolkit's own checkout, from its root, whatever the job's directory", () => {
  const checkout = join(root, "runner-fleet");
  toolkitAt(checkout, true);
  mkdirSync(join(checkout, "models"));
  const result = spawnSync("sh", ["../ci/build-checkout.sh"], { cwd: join(checkout, "models"), env, encoding: "utf8" });
  expect(result.stderr).toBe("");
  expect(result.status).toBe(0);
  expect(readFileSync(join(root, "npm-calls"), "utf8")).toBe(`${checkout} run build --silent\n`);
});

test("does nothing for the installed package of a models repository", () => {
  const models = join(root, "models-repo");
  toolkitAt(join(models, "node_modules", "runner-fleet"), false);
  const result = spawnSync("sh", ["node_modules/runner-fleet/ci/build-checkout.sh"], { cwd: models, env, encoding: "utf8" });
  expect(result.stderr).toBe("");
  expect(result.status).toBe(0);
  expect(existsSync(join(root, "npm-calls"))).toBe(false);
  // The package ships no tsconfig.json (package.json "files"), which is what tells the two apart.
  const files = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { files: string[] }).files;
  expect(files.filter((entry) => entry.includes("tsconfig"))).toEqual([]);
  expect(files).toContain("ci/*.sh");
});

test("fails when the build fails, with npm's exit status", () => {
  const checkout = join(root, "runner-fleet");
  toolkitAt(checkout, true);
  writeFileSync(join(root, "bin", "npm"), "#!/bin/sh\necho 'error: the build needs the dev dependencies' >&2\nexit 1\n");
  const result = spawnSync("sh", ["runner-fleet/ci/build-checkout.sh"], { cwd: root, env, encoding: "utf8" });
  expect(result.status).toBe(1);
  expect(result.stderr).toBe("error: the build needs the dev dependencies\n");
});

test("runs in every child job after npm ci, from the toolkit's directory", () => {
  const installed = renderChildPipeline({ mode: "plan", cells: ["cell-1"], removed: [], base: "abc", toolkit: { command: "npx --no-install runner-fleet", dir: "node_modules/runner-fleet" } });
  expect(installed).toContain('    - "npm ci --cache .npm --prefer-offline --no-audit --no-fund"\n    - "sh node_modules/runner-fleet/ci/build-checkout.sh"\n');
  const checkout = renderChildPipeline({ mode: "plan", cells: ["cell-1"], removed: [], base: "abc", toolkit: { command: "./bin/runner-fleet.js", dir: "." } });
  expect(checkout).toContain('    - "sh ./ci/build-checkout.sh"\n');
});

test("passes shellcheck", () => {
  const result = spawnSync(validatorPath("shellcheck"), ["--shell=sh", SCRIPT], { encoding: "utf8" });
  expect(result.stdout).toBe("");
  expect(result.status).toBe(0);
  expect(readFileSync(SCRIPT, "utf8").startsWith("#!/bin/sh\n")).toBe(true);
});
