/**
 * The toolkit upgrade (./toolkit-upgrade.ts) as the review shows it: a section at the top of the merge
 * request note, before the cells it re-plans, with the changelog entries it crosses; one line in text.
 */
import type { ChangelogEntry } from "./changelog";
import type { ToolkitUpgrade } from "./toolkit-upgrade";
import { counted } from "../text/counted";

/** Changelog lines shown before the rest folds into <details>. */
const LINES_BEFORE_FOLD = 40;

function title(upgrade: ToolkitUpgrade): string {
  return `${upgrade.direction === "upgrade" ? "Toolkit upgrade" : "Toolkit downgrade"}: ${upgrade.package} ${upgrade.from} → ${upgrade.to}`;
}

/** A release's notes under the note's `####` headings: their own headings become bold lines. */
function entryMarkdown(entry: ChangelogEntry): string[] {
  const body = entry.body
    .split("\n")
    .map((line) => line.replace(/^#{1,6}\s+(.*)$/, "**$1**"))
    // The note is found again by its first line's marker: a changelog never supplies another one.
    .map((line) => line.replace(/<!--/g, "&lt;!--"));
  return [`##### ${entry.version}${entry.date ? ` (${entry.date})` : ""}`, "", ...(body.join("\n").trim() ? body : ["_No notes._"]), ""];
}

export function toolkitUpgradeMarkdown(upgrade: ToolkitUpgrade): string[] {
  const out = [`#### ${title(upgrade)}`, ""];
  const verb = upgrade.direction === "upgrade" ? "moves" : "moves back";
  out.push(
    `This change ${verb} the pinned \`${upgrade.package}\` (package-lock.json) from \`${upgrade.from}\` to \`${upgrade.to}\`: ` +
      "every job installs it with `npm ci`, so every cell is planned again by the new version.",
  );
  if (upgrade.direction === "downgrade") out.push("", "> :warning: A downgrade undoes the releases listed below.");
  if (upgrade.note) out.push("", `_Note: ${upgrade.note}._`);
  if (upgrade.entries.length === 0) return out;
  const lines = upgrade.entries.flatMap(entryMarkdown);
  const heading = upgrade.direction === "upgrade" ? "Changelog entries in this upgrade" : "Changelog entries this downgrade undoes";
  if (lines.length <= LINES_BEFORE_FOLD) return [...out, "", `${heading}:`, "", ...lines];
  return [...out, "", `<details><summary>${heading} (${counted(upgrade.entries.length, "release")})</summary>`, "", ...lines, "</details>"];
}

export function toolkitUpgradeText(upgrade: ToolkitUpgrade): string[] {
  const versions = upgrade.entries.map((entry) => entry.version).join(", ");
  const lines = [`${title(upgrade).replace("→", "->")} (package-lock.json); every cell is planned again`];
  lines.push(upgrade.entries.length > 0 ? `  changelog entries: ${versions}` : "  no changelog entries");
  if (upgrade.note) lines.push(`  note: ${upgrade.note}`);
  return lines;
}
