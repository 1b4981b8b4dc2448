/**
 * A merge request that moves a models repository's runner-fleet pin is shown as an upgrade in the
 * review, with the changelog entries it crosses (fixture changelogs in Keep a Changelog form, and
 * lockfiles as npm writes them: lockfileVersion 3 `packages`, lockfileVersion 1 `dependencies`).
 * End to end, through runReview with each side synthesized by its own pin: models-repository-review.test.ts.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { entriesBetween, parseChangelog } from "../../lib/review/changelog";
import { renderReviewMarkdown, renderReviewText, REVIEW_MARKER, type ReviewReport } from "../../lib/review/render-review";
import { describeUpgrade, pinnedVersion, toolkitUpgrade } from "../../lib/review/toolkit-upgrade";
import { createTempRepo, type TempRepo } from "./review-temp-repo";

const FIXTURES = join(__dirname, "..", "fixtures", "changelogs");
const keepAChangelog = readFileSync(join(FIXTURES, "keep-a-changelog.md"), "utf8");
const longChangelog = readFileSync(join(FIXTURES, "long.md"), "utf8");

/** package-lock.json of a models repository pinning runner-fleet at `version` (lockfileVersion 3, as npm 7+ writes it). */
function lockfile(version: string): string {
  return `${JSON.stringify(
    {
      name: "team-runner-models",
      lockfileVersion: 3,
      requires: true,
      packages: {
        "": { name: "team-runner-models", dependencies: { "runner-fleet": version } },
        "node_modules/runner-fleet": { version, resolved: `https://registry.npmjs.org/runner-fleet/-/runner-fleet-${version}.tgz`, license: "MIT" },
        "node_modules/runner-fleet/node_modules/semver": { version: "7.7.3" },
      },
    },
    null,
    2,
  )}\n`;
}

describe("the changelog", () => {
  it("has one entry per release, newest first, without Unreleased, the preamble or the compare links", () => {
    const entries = parseChangelog(keepAChangelog);
    expect(entries.map((entry) => [entry.version, entry.date])).toEqual([
      ["1.4.0", "2026-11-20"],
      ["1.3.1", "2026-11-02"],
      ["1.3.0", "2026-10-15"],
      ["1.2.0", "2026-09-30"],
      ["1.1.0", "2026-09-01"],
    ]);
    expect(entries[0]?.body).toBe(
      "### Changed for a running fleet\n\n- Replaces the runner manager instance templates of every Google cell (new boot disk type).\n\n### Added\n\n- `status` shows the toolkit version that provisioned each cell.",
    );
    expect(entries.at(-1)?.body).toBe("### Added\n\n- First release.");
  });

  it("an upgrade crosses the releases after the old pin up to the new one, pre-releases included", () => {
    expect(entriesBetween(parseChangelog(keepAChangelog), "1.2.0", "1.4.0").map((entry) => entry.version)).toEqual(["1.4.0", "1.3.1", "1.3.0"]);
    expect(entriesBetween(parseChangelog(keepAChangelog), "1.3.0", "1.3.1").map((entry) => entry.version)).toEqual(["1.3.1"]);
    expect(entriesBetween(parseChangelog(longChangelog), "1.8.0", "2.0.0").map((entry) => entry.version)).toEqual(["2.0.0", "2.0.0-rc.1", "1.9.0"]);
  });
});

describe("the pin in package-lock.json", () => {
  it("is read from lockfileVersion 3 and 1 lockfiles, and is absent where the toolkit is not a dependency", () => {
    expect(pinnedVersion(lockfile("1.2.0"))).toBe("1.2.0");
    expect(pinnedVersion(JSON.stringify({ lockfileVersion: 1, dependencies: { "runner-fleet": { version: "1.1.0" } } }))).toBe("1.1.0");
    // This repository's own lockfile: the toolkit is the root package, not a dependency.
    expect(pinnedVersion(readFileSync(join(__dirname, "..", "..", "package-lock.json"), "utf8"))).toBeUndefined();
    expect(pinnedVersion("")).toBeUndefined();
    expect(pinnedVersion("{ not json")).toBeUndefined();
  });
});

describe("a merge request of a models repository", () => {
  let repo: TempRepo;
  let base: string;

  beforeEach(() => {
    repo = createTempRepo({ "package-lock.json": lockfile("1.2.0"), "models/cell-1.yaml": "cell: { id: cell-1 }\n" });
    base = repo.git("rev-parse", "HEAD").trim();
  });
  afterEach(() => repo.cleanup());

  const runningHead = { version: "1.4.0", changelogText: keepAChangelog };

  it("that moves the pin is an upgrade, with the entries between the two versions", async () => {
    repo.write("package-lock.json", lockfile("1.4.0"));
    const head = repo.commit("runner-fleet 1.4.0");

    const upgrade = await toolkitUpgrade({ cwd: repo.dir, baseSha: base, head, toolkit: runningHead });

    expect(upgrade).toMatchObject({ package: "runner-fleet", from: "1.2.0", to: "1.4.0", direction: "upgrade" });
    expect(upgrade?.entries.map((entry) => entry.version)).toEqual(["1.4.0", "1.3.1", "1.3.0"]);
    expect(upgrade?.note).toBeUndefined();
  });

  it("reads the working tree's lockfile when no head ref is given", async () => {
    repo.write("package-lock.json", lockfile("1.3.1"));
    const upgrade = await toolkitUpgrade({ cwd: repo.dir, baseSha: base, toolkit: runningHead });
    expect(upgrade?.entries.map((entry) => entry.version)).toEqual(["1.3.1", "1.3.0"]);
  });

  it("that leaves the pin alone (other dependencies, models) shows no upgrade", async () => {
    repo.write("package-lock.json", lockfile("1.2.0").replace('"version": "7.7.3"', '"version": "7.7.4"'));
    repo.write("models/cell-1.yaml", "cell: { id: cell-1, labels: { a: b } }\n");
    const head = repo.commit("other changes");
    expect(await toolkitUpgrade({ cwd: repo.dir, baseSha: base, head, toolkit: runningHead })).toBeUndefined();
  });

  it("that moves the pin back is a downgrade, listing the releases it undoes", async () => {
    repo.write("package-lock.json", lockfile("1.1.0"));
    const head = repo.commit("back to 1.1.0");
    const upgrade = await toolkitUpgrade({ cwd: repo.dir, baseSha: base, head, toolkit: { version: "1.1.0", changelogText: keepAChangelog } });
    expect(upgrade).toMatchObject({ from: "1.2.0", to: "1.1.0", direction: "downgrade" });
    expect(upgrade?.entries.map((entry) => entry.version)).toEqual(["1.2.0"]);
    expect(upgrade?.note).toContain("changelog of runner-fleet 1.1.0");
  });
});

describe("the upgrade in the review", () => {
  const report = (upgrade: ReturnType<typeof describeUpgrade>): ReviewReport => ({
    base: { ref: "main", sha: "0123456789abcdef" },
    head: { ref: "HEAD" },
    changedCells: { base: "main", baseSha: "0123456789abcdef", head: "HEAD", cells: [], removed: [], sharedFiles: ["package-lock.json"], ignoredFiles: [] },
    changedOnly: false,
    diff: { cells: [], summary: { changed: [], added: [], removed: [], unchanged: [] } } as unknown as ReviewReport["diff"],
    toolkitUpgrade: upgrade,
  });

  it("comes first in the merge request note, with each crossed release's notes under its version", () => {
    const markdown = renderReviewMarkdown(report(describeUpgrade("1.2.0", "1.4.0", { version: "1.4.0", changelogText: keepAChangelog })));
    expect(markdown.startsWith(`${REVIEW_MARKER}\n`)).toBe(true);
    expect(markdown).toContain("#### Toolkit upgrade: runner-fleet 1.2.0 → 1.4.0");
    expect(markdown).toContain("from `1.2.0` to `1.4.0`");
    expect(markdown).toContain("##### 1.4.0 (2026-11-20)");
    expect(markdown).toContain("**Changed for a running fleet**");
    expect(markdown).toContain("- Replaces the runner manager instance templates of every Google cell (new boot disk type).");
    expect(markdown.indexOf("##### 1.4.0")).toBeLessThan(markdown.indexOf("##### 1.3.1"));
    expect(markdown).toContain("##### 1.3.0 (2026-10-15)");
    expect(markdown).not.toContain("##### 1.2.0");
    expect(markdown).not.toContain("Something not released yet");
    expect(markdown).not.toContain("compare/");
  });

  it("folds a long changelog, and never lets it add a second note marker", () => {
    const markdown = renderReviewMarkdown(report(describeUpgrade("1.8.0", "2.0.0", { version: "2.0.0", changelogText: longChangelog })));
    expect(markdown).toContain("<details><summary>Changelog entries in this upgrade (3 releases)</summary>");
    expect(markdown.split(REVIEW_MARKER)).toHaveLength(2);
    expect(markdown).toContain("Release candidate of 2.0.0 &lt;!-- runner-fleet-review --> with a marker");
  });

  it("counts one folded release as 1 release", () => {
    const oneLong = `# Changelog\n\n## [2.0.0] - 2026-12-01\n\n${Array.from({ length: 45 }, (_, index) => `- change ${index + 1}`).join("\n")}\n\n## [1.9.0] - 2026-11-01\n\n- older\n`;
    const markdown = renderReviewMarkdown(report(describeUpgrade("1.9.0", "2.0.0", { version: "2.0.0", changelogText: oneLong })));
    expect(markdown).toContain("<details><summary>Changelog entries in this upgrade (1 release)</summary>");
  });

  it("says when the running toolkit's changelog cannot hold the new releases, or there is none", () => {
    // runner-fleet 1.3.1's own changelog: 1.4.0 was not released yet.
    const changelogOf131 = keepAChangelog.replace(/## \[1\.4\.0\][\s\S]*?(?=## \[1\.3\.1\])/, "");
    expect(changelogOf131).not.toContain("[1.4.0] - ");
    const older = describeUpgrade("1.2.0", "1.4.0", { version: "1.3.1", changelogText: changelogOf131 });
    expect(older.entries.map((entry) => entry.version)).toEqual(["1.3.1", "1.3.0"]);
    expect(renderReviewMarkdown(report(older))).toContain("releases after 1.3.1 are not in it (run npm ci to install 1.4.0)");
    const none = describeUpgrade("1.2.0", "1.4.0", { version: "1.4.0" });
    expect(none.entries).toEqual([]);
    expect(renderReviewMarkdown(report(none))).toContain("ships no CHANGELOG.md");
  });

  it("is one line and the crossed versions in the text review", () => {
    const text = renderReviewText(report(describeUpgrade("1.2.0", "1.4.0", { version: "1.4.0", changelogText: keepAChangelog })));
    expect(text).toContain("Toolkit upgrade: runner-fleet 1.2.0 -> 1.4.0 (package-lock.json); every cell is planned again\n  changelog entries: 1.4.0, 1.3.1, 1.3.0\n");
  });
});

