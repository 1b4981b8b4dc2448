/**
 * A CHANGELOG.md in Keep a Changelog form (https://keepachangelog.com/en/1.1.0/): one `## [x.y.z] - date`
 * section per release, newest first, an optional `## [Unreleased]` section on top and link
 * reference definitions (`[1.2.0]: https://...`) at the bottom. The review shows the sections a
 * toolkit upgrade crosses.
 */
// Each function's module, not the package's index: the index loads all of semver (its ranges build comparators as they load), ~10 ms of every command's start.
import gt from "semver/functions/gt";
import lte from "semver/functions/lte";
import rcompare from "semver/functions/rcompare";

export interface ChangelogEntry {
  readonly version: string;
  /** The release date as written (ISO 8601 in Keep a Changelog), if any. */
  readonly date?: string;
  /** The section's markdown below its heading, trimmed. */
  readonly body: string;
}

/** `## [1.2.0] - 2026-11-20`, `## 1.2.0 - 2026-11-20`, `## [1.2.0]`, `## [1.2.0] - 2026-11-20 [YANKED]`. */
const RELEASE_HEADING = /^##\s+\[?v?(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)\]?(?:\s+-\s+(\S+))?.*$/;
const ANY_SECTION_HEADING = /^##\s/;
/** Keep a Changelog's compare links at the end of the file: not part of the last release's notes. */
const LINK_DEFINITION = /^\[[^\]]+\]:\s*\S+\s*$/;

/** The releases of a changelog, in the file's order; `Unreleased` and text before the first release are left out. */
export function parseChangelog(text: string): ChangelogEntry[] {
  const entries: ChangelogEntry[] = [];
  let current: { version: string; date?: string; lines: string[] } | undefined;
  const finish = () => {
    if (!current) return;
    const body = current.lines.filter((line) => !LINK_DEFINITION.test(line)).join("\n").trim();
    entries.push({ version: current.version, ...(current.date === undefined ? {} : { date: current.date }), body });
  };
  for (const line of text.split(/\r?\n/)) {
    if (ANY_SECTION_HEADING.test(line)) {
      finish();
      const release = RELEASE_HEADING.exec(line);
      current = release ? { version: release[1] as string, date: release[2], lines: [] } : undefined;
      continue;
    }
    current?.lines.push(line);
  }
  finish();
  return entries;
}

/** The releases after `from` up to and including `to` (an upgrade crosses them), newest first. */
export function entriesBetween(entries: readonly ChangelogEntry[], from: string, to: string): ChangelogEntry[] {
  return entries.filter((entry) => gt(entry.version, from) && lte(entry.version, to)).sort((a, b) => rcompare(a.version, b.version));
}
