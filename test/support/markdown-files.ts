/** The Markdown files of the documentation, and what a reader can link to in them. */
import { readdirSync } from "node:fs";
import { join } from "node:path";

/** Every .md file under a directory, sorted, depth first. */
export function markdownFilesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((entry) => (entry.isDirectory() ? markdownFilesUnder(join(dir, entry.name)) : entry.name.endsWith(".md") ? [join(dir, entry.name)] : []));
}

/** A Markdown text's lines outside fenced code blocks, with their line numbers (1-based). */
export function proseLines(text: string): { line: number; text: string }[] {
  let fenced = false;
  return text.split("\n").flatMap((line, index) => {
    if (/^\s*```/.test(line)) {
      fenced = !fenced;
      return [];
    }
    return fenced ? [] : [{ line: index + 1, text: line }];
  });
}

/**
 * The anchor GitHub and GitLab give a heading: lower case, punctuation other than "-" and "_" dropped,
 * spaces as "-"; a repeated heading gets "-1", "-2" (github-slugger's rules, which GitLab follows).
 */
export function headingAnchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const { text: line } of proseLines(text)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const base = heading
      .replace(/`/g, "")
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** The headings and bold paragraph leads (`**The schedule.**`) a text names sections by. */
export function sectionNames(text: string): Set<string> {
  const names = new Set<string>();
  for (const { text: line } of proseLines(text)) {
    const heading = /^#{1,6}\s+(.*?)\s*$/.exec(line)?.[1];
    if (heading !== undefined) names.add(heading.replace(/`/g, ""));
    for (const lead of line.matchAll(/\*\*([^*]+?)\.?\*\*/g)) names.add(lead[1]);
  }
  return names;
}

/** The inline links of a Markdown text outside code, `[text](target)`, with their line numbers. */
export function markdownLinks(text: string): { line: number; target: string }[] {
  return proseLines(text).flatMap(({ line, text: prose }) =>
    [...prose.replace(/`[^`]*`/g, "").matchAll(/\]\(([^)\s]+)\)/g)].map((match) => ({ line, target: match[1] })),
  );
}
