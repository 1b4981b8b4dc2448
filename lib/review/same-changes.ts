/**
 * One entry for the same change in many cells. A fleet-wide change (a runner bump in a hundred cells)
 * makes the same section a hundred times, with only the cell's name differing; a reviewer reads it
 * once, with the list of cells. Cells whose sections differ in anything but their own name keep
 * entries of their own, so a difference is never hidden behind a group.
 */

/** A cell's part of a review: the heading after the cell's name, and the lines below it. */
export interface CellSection {
  readonly heading: string;
  readonly body: readonly string[];
}

export interface SectionGroup {
  /** The cells, in the order the review lists them. */
  readonly cells: readonly string[];
  /** The section; in a group of several cells, each cell's own name reads `<cell>`. */
  readonly section: CellSection;
}

/** Stands for each cell's own name in a section shared by several cells. */
export const CELL_PLACEHOLDER = "<cell>";

export function sameChanges<T extends { readonly cell: string }>(cells: readonly T[], sectionOf: (cell: T) => CellSection): SectionGroup[] {
  const groups = new Map<string, { cells: string[]; own: CellSection; shared: CellSection }>();
  for (const cell of cells) {
    const own = sectionOf(cell);
    const shared = withPlaceholder(own, cell.cell);
    const key = JSON.stringify(shared);
    const group = groups.get(key);
    if (group) group.cells.push(cell.cell);
    else groups.set(key, { cells: [cell.cell], own, shared });
  }
  return [...groups.values()].map((group) => ({ cells: group.cells, section: group.cells.length === 1 ? group.own : group.shared }));
}

/**
 * An opaque value as stack-diff shows it (`sha256:09670f5c7fb4 (15172 chars)`): user data that names its
 * cell hashes differently in every cell, though the change is the same. What changed in it is shown as
 * the rendered files' diff, which is compared as text.
 */
const OPAQUE_VALUE = /sha256:[0-9a-f]{12} \(\d+ chars\)/g;
/** Stands for such a value in a section shared by several cells. */
export const PER_CELL_HASH = "sha256:<per cell>";

/**
 * The section with the cell's name, where it stands as a name of its own (not inside `cell-10` for
 * `cell-1`), as `<cell>`, and each opaque value's hash as `sha256:<per cell>`.
 */
function withPlaceholder(section: CellSection, cell: string): CellSection {
  const name = new RegExp(`(?<![\\w-])${cell.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?![\\w-])`, "g");
  const replace = (text: string) => text.replace(name, CELL_PLACEHOLDER).replace(OPAQUE_VALUE, PER_CELL_HASH);
  return { heading: replace(section.heading), body: section.body.map(replace) };
}

/** "cell-1", or "3 cells, the same change (<cell> is each one's name): cell-1, cell-2, cell-3". */
export function cellsHeading(cells: readonly string[]): string {
  if (cells.length === 1) return cells[0];
  return `${cells.length} cells, the same change (${CELL_PLACEHOLDER} is each one's name): ${cells.join(", ")}`;
}

/** "`cell-1`", or "3 cells, the same change". */
export function cellsHeadingMarkdown(cells: readonly string[]): string {
  return cells.length === 1 ? `\`${cells[0]}\`` : `${cells.length} cells, the same change`;
}

/** Below a group's heading: which cells, folded when there are many. */
export function cellsListMarkdown(cells: readonly string[]): string[] {
  if (cells.length === 1) return [];
  const list = cells.map((cell) => `\`${cell}\``).join(", ");
  const intro = `\`${CELL_PLACEHOLDER}\` below is each cell's own name.`;
  return cells.length <= 10 ? ["", `Cells: ${list}. ${intro}`] : ["", `<details><summary>The ${cells.length} cells</summary>`, "", list, "", "</details>", "", intro];
}
