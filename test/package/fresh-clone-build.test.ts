/**
 * `npm pack` (and `npm publish`, `npm test`) build first, through package.json's prepack and build
 * scripts; on a fresh clone the build's tools (typescript, esbuild: dev dependencies) are not installed
 * yet. The build's first step says what to run, in one line, instead of node's
 * "Cannot find module .../typescript/bin/tsc" and its stack.
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPO_ROOT } from "../support/cli";

const manifest = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> };

test("pack and publish build through prepack; no prepare, which every install of the package would see", () => {
  expect(manifest.scripts.prepack).toBe("npm run build");
  expect(manifest.scripts.prepare).toBeUndefined();
  expect(manifest.scripts.build.startsWith("node build/check-dev-install.js && ")).toBe(true);
  // The set-up builds, since npm ci no longer does.
  expect(readFileSync(join(REPO_ROOT, "tools", "setup.sh"), "utf8")).toMatch(/^npm ci .*\nnpm run build /m);
});

test("fails when the dev dependencies are not installed, saying in one line to run npm ci", () => {
  const clone = mkdtempSync(join(tmpdir(), "fresh-clone-"));
  try {
    mkdirSync(join(clone, "build"));
    copyFileSync(join(REPO_ROOT, "build", "check-dev-install.js"), join(clone, "build", "check-dev-install.js"));
    const result = spawnSync(process.execPath, [join(clone, "build", "check-dev-install.js")], { cwd: clone, encoding: "utf8" });
    expect(result.status).toBe(1);
    expect(result.stderr).toBe(
      `error: the build needs the dev dependencies (typescript, esbuild not in node_modules/): run \`npm ci\` in ${clone} first (or \`npm run setup\`, which also fetches the test validators)\n`,
    );
  } finally {
    rmSync(clone, { recursive: true, force: true });
  }
});

test("passes in this checkout, where npm ci installed them", () => {
  const result = spawnSync(process.execPath, [join(REPO_ROOT, "build", "check-dev-install.js")], { encoding: "utf8" });
  expect(result.stderr).toBe("");
  expect(result.status).toBe(0);
});
