/**
 * Pipelines run on a supported Node LTS (22 or 24: Node 20 reached end of life in April 2026),
 * while package.json's engines, which the README repeats, still admit Node 20.9 (this code runs there).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import semver from "semver";
import { parse } from "yaml";
import { DEFAULT_CI_IMAGE, renderChildPipeline } from "../../lib/ci/child-pipeline";
import { resolvePipelineConfig } from "../../lib/ci/gitlab-ci/include";

const ROOT = join(__dirname, "..", "..");
const LTS_IMAGE = /^node:(22|24)(\.\d+)*-bookworm$/;

function images(node: unknown): string[] {
  if (Array.isArray(node)) return node.flatMap(images);
  if (typeof node !== "object" || node === null) return [];
  return Object.entries(node).flatMap(([key, value]) => (key === "image" && typeof value === "string" ? [value] : images(value)));
}

describe("Node LTS", () => {
  it("runs every job of the root and child pipelines that runs node on a Node 22 or 24 image", () => {
    // The one job that runs no node: the release of a tag, which GitLab runs with its own CLI (ci/release/release.gitlab-ci.yml).
    const { "release:catalog": releaseCatalog, ...config } = resolvePipelineConfig(ROOT) as Record<string, { image?: string; script?: string[] }>;
    expect(releaseCatalog.image).toMatch(/^registry\.gitlab\.com\/gitlab-org\/cli:v1\.(\d+)\.\d+$/);
    // The `release` keyword needs glab 1.58 or later.
    expect(Number(/:v1\.(\d+)\./.exec(releaseCatalog.image!)![1])).toBeGreaterThanOrEqual(58);
    expect(JSON.stringify(releaseCatalog.script)).not.toMatch(/\b(node|npm|npx)\b/);
    const found = [
      ...images(config),
      ...images(parse(renderChildPipeline({ mode: "apply", cells: ["cell-1"], removed: ["cell-9"], base: "main" }))),
    ];
    expect(found.length).toBeGreaterThan(1);
    for (const image of found) expect(image).toMatch(LTS_IMAGE);
    expect(DEFAULT_CI_IMAGE).toMatch(LTS_IMAGE);
  });

  it("declares engines that admit Node 20.9, 22 and 24, and the README says the same", () => {
    const engines = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { engines: { node: string } }).engines.node;
    for (const version of ["20.9.0", "22.0.0", "24.0.0"]) expect(semver.satisfies(version, engines)).toBe(true);
    expect(semver.satisfies("20.8.0", engines)).toBe(false);
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    expect(readme).toContain(`"node": "${engines}"`);
    expect(readme).toMatch(/Node\.js 22 or 24/);
  });

  it("is running on a Node version the engines admit", () => {
    const engines = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { engines: { node: string } }).engines.node;
    expect(semver.satisfies(process.versions.node, engines)).toBe(true);
  });
});
