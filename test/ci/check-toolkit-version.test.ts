/**
 * ci/check-toolkit-version.sh, run as the component's jobs run it: from the installed toolkit
 * (node_modules/runner-fleet/ci/) in a models repository, with the component's toolkit_version input.
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { validatorPath } from "../support/validators";

const ROOT = join(__dirname, "..", "..");
const SCRIPT = join(ROOT, "ci", "check-toolkit-version.sh");

let project: string;

beforeEach(() => {
  // A models repository after `npm ci`: the toolkit at 1.2.0 under node_modules, its ci/ scripts with it.
  project = mkdtempSync(join(tmpdir(), "toolkit-version-"));
  mkdirSync(join(project, "node_modules", "runner-fleet", "ci"), { recursive: true });
  copyFileSync(SCRIPT, join(project, "node_modules", "runner-fleet", "ci", "check-toolkit-version.sh"));
  writeFileSync(join(project, "node_modules", "runner-fleet", "package.json"), JSON.stringify({ name: "runner-fleet", version: "1.2.0" }));
});

afterEach(() => rmSync(project, { recursive: true, force: true }));

const check = (expected: string) => spawnSync("sh", ["node_modules/runner-fleet/ci/check-toolkit-version.sh", expected], { cwd: project, encoding: "utf8" });

test("passes when the installed toolkit is the version asked for", () => {
  const result = check("1.2.0");
  expect(result.stderr).toBe("");
  expect(result.status).toBe(0);
});

test("passes for lockfile, whatever is installed", () => {
  expect(check("lockfile").status).toBe(0);
});

test("fails with exit 2 naming both versions and the fix when the lockfile pins another version", () => {
  const result = check("1.3.0");
  expect(result.status).toBe(2);
  expect(result.stderr).toContain("runner-fleet 1.2.0 is installed (from package-lock.json), but the pipeline asks for 1.3.0");
  expect(result.stderr).toContain("npm install --save-exact runner-fleet@1.3.0");
});

test("reads the version of the toolkit it belongs to, not of the project it runs in", () => {
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "team-models", version: "1.3.0" }));
  expect(check("1.3.0").status).toBe(2);
});

test("passes shellcheck", () => {
  const result = spawnSync(validatorPath("shellcheck"), ["--shell=sh", SCRIPT], { encoding: "utf8" });
  expect(result.stdout).toBe("");
  expect(result.status).toBe(0);
  expect(readFileSync(SCRIPT, "utf8").startsWith("#!/bin/sh\n")).toBe(true);
});
