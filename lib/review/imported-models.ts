/**
 * The first merge request that adds an imported model (`import` wrote it from existing runner
 * managers' config.toml) says what onboard will do with that fleet's runners: adopt them (their
 * tokens are in the secret store, `import --adopt`), not create new ones; or, when nothing was
 * adopted, that new runners are created beside the old ones. Read from the model's header, which
 * import writes (lib/model/import-marker.ts), on the head side, for models the change adds.
 */
import { ADOPTED_RUNNERS_HEADING, IMPORTED_MODEL_MARKER } from "../model/import-marker";
import type { ChangedCellsResult } from "./changed-cells";
import { cellSidesOf, type ReviewReadOptions } from "./model-sides";

export interface CellImportNote {
  readonly cell: string;
  readonly note: string;
}

export async function importedModelNotes(changed: ChangedCellsResult, options: ReviewReadOptions): Promise<CellImportNote[]> {
  return (await cellSidesOf(changed, options)).flatMap(({ cell, head }) => {
    if (!cell.reasons.includes(`${cell.file} added`)) return [];
    const note = importNote(head.text);
    return note ? [{ cell: cell.cell, note }] : [];
  });
}

/** What the review says of a model's text, or undefined when import did not write it. */
export function importNote(text: string): string | undefined {
  const header = leadingComments(text);
  if (!header.some((line) => line.startsWith(IMPORTED_MODEL_MARKER))) return undefined;
  const start = header.indexOf(ADOPTED_RUNNERS_HEADING);
  const adopted: string[] = [];
  for (const line of start === -1 ? [] : header.slice(start + 1)) {
    const match = /^- (shard \S+ adopts runner #\d+)/.exec(line);
    if (!match) break;
    adopted.push(match[1]);
  }
  if (adopted.length === 0) {
    return "imported from existing runner managers (runner-fleet import) without adopting runners: onboard creates new runners; the old fleet's runners stay until they are removed";
  }
  return `imported from existing runner managers (runner-fleet import): its runners are adopted, not created (${adopted.join("; ")}); onboard keeps their tokens and IDs and brings their settings in line`;
}

/** The comment lines before the first YAML content, without "#" and surrounding blanks. */
function leadingComments(text: string): string[] {
  const lines: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    if (line.trim() === "") continue;
    if (!line.startsWith("#")) break;
    lines.push(line.slice(1).trim());
  }
  return lines;
}
