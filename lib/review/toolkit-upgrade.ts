/**
 * A merge request of a models repository that moves the runner-fleet pin (package-lock.json, which
 * `npm ci` installs in every job) changes the toolkit that plans and applies every cell. The review
 * shows it as an upgrade (or a downgrade), with the toolkit's changelog entries between the two
 * versions, so a reviewer reads what changes for the running fleet before every cell is re-planned.
 *
 * The changelog is the installed toolkit's own CHANGELOG.md (the package ships it): in the merge
 * request pipeline `npm ci` installed the head's pin, so the running toolkit is the new version and
 * its changelog holds every release up to it. When the running toolkit is another version (a local
 * run before `npm ci`), the review says so.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
// Each function's module, not the package's index: the index loads all of semver (its ranges build comparators as they load), ~10 ms of every command's start.
import eq from "semver/functions/eq";
import gt from "semver/functions/gt";
import lt from "semver/functions/lt";
import valid from "semver/functions/valid";
import { PROJECT_ROOT } from "../files/project-root";
import { entriesBetween, parseChangelog, type ChangelogEntry } from "./changelog";
import { git, repositoryRoot } from "./changed-cells";

/** The published package name a models repository pins. */
export const TOOLKIT_PACKAGE = "runner-fleet";
const LOCKFILE = "package-lock.json";

export interface ToolkitUpgrade {
  readonly package: string;
  readonly from: string;
  readonly to: string;
  readonly direction: "upgrade" | "downgrade";
  /** Releases after `from` up to `to` (for a downgrade: after `to` up to `from`, the ones undone), newest first. */
  readonly entries: readonly ChangelogEntry[];
  /** Why the entries may be incomplete or missing, if they may be. */
  readonly note?: string;
}

export interface ToolkitUpgradeOptions {
  readonly cwd: string;
  /** Commit the change is compared with. */
  readonly baseSha: string;
  /** The changed side. @default - the working tree */
  readonly head?: string;
  /** The running toolkit's changelog and version. @default - this toolkit's CHANGELOG.md and package.json */
  readonly toolkit?: { readonly changelogText?: string; readonly version: string };
}

/** The pinned version of the toolkit in a package-lock.json (lockfileVersion 2 and 3: `packages`; 1: `dependencies`). */
export function pinnedVersion(lockfileText: string, name = TOOLKIT_PACKAGE): string | undefined {
  if (!lockfileText.trim()) return undefined;
  let lock: { packages?: Record<string, { version?: unknown }>; dependencies?: Record<string, { version?: unknown }> };
  try {
    lock = JSON.parse(lockfileText) as typeof lock;
  } catch {
    // A broken lockfile fails `npm ci` in the same pipeline, with npm's own message.
    return undefined;
  }
  const version = lock.packages?.[`node_modules/${name}`]?.version ?? lock.dependencies?.[name]?.version;
  return typeof version === "string" && valid(version) ? version : undefined;
}

/** The toolkit this code is part of: its version and CHANGELOG.md (undefined text when it ships none). */
export function runningToolkit(root = PROJECT_ROOT): { readonly changelogText?: string; readonly version: string } {
  const version = String((JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version?: unknown }).version ?? "");
  const changelogPath = join(root, "CHANGELOG.md");
  return existsSync(changelogPath) ? { version, changelogText: readFileSync(changelogPath, "utf8") } : { version };
}

/** The pin change between base and head, or undefined when the pin did not move (or there is none). */
export async function toolkitUpgrade(options: ToolkitUpgradeOptions): Promise<ToolkitUpgrade | undefined> {
  const root = await repositoryRoot(options.cwd);
  const before = pinnedVersion(await git(["show", `${options.baseSha}:${LOCKFILE}`], root, { allowFailure: true }));
  const afterText = options.head
    ? await git(["show", `${options.head}:${LOCKFILE}`], root, { allowFailure: true })
    : existsSync(join(root, LOCKFILE))
      ? readFileSync(join(root, LOCKFILE), "utf8")
      : "";
  const after = pinnedVersion(afterText);
  if (before === undefined || after === undefined || eq(before, after)) return undefined;
  return describeUpgrade(before, after, options.toolkit ?? runningToolkit());
}

/** The upgrade from `from` to `to`, its changelog entries read from the running toolkit's changelog. */
export function describeUpgrade(from: string, to: string, toolkit: { readonly changelogText?: string; readonly version: string }): ToolkitUpgrade {
  const direction = gt(to, from) ? "upgrade" : "downgrade";
  const [low, high] = direction === "upgrade" ? [from, to] : [to, from];
  const base = { package: TOOLKIT_PACKAGE, from, to, direction } as const;
  if (toolkit.changelogText === undefined) {
    return { ...base, entries: [], note: `runner-fleet ${toolkit.version} (the toolkit running this review) ships no CHANGELOG.md` };
  }
  const entries = entriesBetween(parseChangelog(toolkit.changelogText), low, high);
  const notes: string[] = [];
  if (toolkit.version !== high) {
    notes.push(
      `entries are read from the changelog of runner-fleet ${toolkit.version}, the toolkit running this review` +
        (valid(toolkit.version) && lt(toolkit.version, high) ? `; releases after ${toolkit.version} are not in it (run npm ci to install ${to})` : ""),
    );
  }
  if (entries.length === 0) notes.push(`its changelog has no entry between ${low} and ${high}`);
  return { ...base, entries, ...(notes.length > 0 ? { note: notes.join("; ") } : {}) };
}
