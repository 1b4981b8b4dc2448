/**
 * Machine types that exist, read from the dated table data/machine-types.json, so a type that does not
 * exist (m7i.lage, n2d-standard-3, c7i.5xlarge) is refused before apply with the nearest ones that do.
 * - AWS: every instance type the EC2 API accepts, grouped by family: the InstanceType enum of the EC2
 *   service model, written into the table by tools/data/aws-instance-types.py.
 * - Google Cloud: each series' table of predefined machine types on Google's series pages, transcribed;
 *   custom types (`n2-custom-4-8192`, N1's `custom-4-16384`) of the series that offer them are checked by
 *   shape only.
 * Update the table and its checked_on together.
 */
import { closest, distance } from "fastest-levenshtein";
import rawTable from "../../data/machine-types.json";

interface MachineTypeTable {
  readonly checked_on: string;
  readonly aws: { readonly source: string; readonly families: Readonly<Record<string, readonly string[]>> };
  readonly google: { readonly source: string; readonly custom_series: readonly string[]; readonly series: Readonly<Record<string, readonly string[]>> };
}

const table: MachineTypeTable = rawTable;

export const MACHINE_TYPES_CHECKED_ON = table.checked_on;

/** Family (AWS) or series (Google Cloud) -> the sizes after the separator ("large", "standard-4"). */
const FAMILIES: Readonly<Record<"aws" | "google", ReadonlyMap<string, ReadonlySet<string>>>> = {
  aws: new Map(Object.entries(table.aws.families).map(([family, sizes]) => [family, new Set(sizes)])),
  google: new Map(Object.entries(table.google.series).map(([series, sizes]) => [series, new Set(sizes)])),
};
const SEPARATOR = { aws: ".", google: "-" } as const;
const CUSTOM_SERIES = new Set(table.google.custom_series);
const GOOGLE_CUSTOM = /^custom-[0-9]+-[0-9]+(-ext)?$/;

export type MachineTypeVerdict =
  | { readonly kind: "known" }
  /** The family exists, the size does not: the family's nearest sizes. */
  | { readonly kind: "unknown-size"; readonly family: string; readonly suggestions: readonly string[] }
  /** No such family in the table: a close family's type when there is one. */
  | { readonly kind: "unknown-family"; readonly family: string; readonly suggestions: readonly string[] };

/** Whether the table lists the type (or it is a custom Google type of a series that has them). */
export function isKnownMachineType(provider: "google" | "aws", machineType: string): boolean {
  return machineTypeVerdict(provider, machineType).kind === "known";
}

export function machineTypeVerdict(provider: "google" | "aws", machineType: string): MachineTypeVerdict {
  // N1 custom types carry no series: custom-4-16384.
  if (provider === "google" && GOOGLE_CUSTOM.test(machineType)) return { kind: "known" };
  const cut = machineType.indexOf(SEPARATOR[provider]);
  const family = cut > 0 ? machineType.slice(0, cut) : machineType;
  const size = cut > 0 ? machineType.slice(cut + 1) : "";
  const families = FAMILIES[provider];
  const sizes = families.get(family);
  if (sizes === undefined) {
    // A close family name with the same size is the likely meant type (m7x.large -> m7i.large).
    const nearest = closest(family, [...families.keys()]);
    const meant = `${nearest}${SEPARATOR[provider]}${size}`;
    const plausible = distance(family, nearest) <= 1 && families.get(nearest)!.has(size);
    return { kind: "unknown-family", family, suggestions: plausible ? [meant] : [] };
  }
  if (sizes.has(size)) return { kind: "known" };
  if (provider === "google" && CUSTOM_SERIES.has(family) && GOOGLE_CUSTOM.test(size)) return { kind: "known" };
  return { kind: "unknown-size", family, suggestions: nearestSizes(size, [...sizes]).map((near) => `${family}${SEPARATOR[provider]}${near}`) };
}

/**
 * The sizes a person most likely meant: for a size with a number in it (5xlarge, standard-3,
 * standard-17), the family's sizes of the same shape just below and just above it; otherwise (larg,
 * standrad-2) the closest names by edit distance.
 */
function nearestSizes(size: string, sizes: readonly string[]): string[] {
  const shape = numberedShape(size);
  if (shape) {
    const sameShape = sizes.flatMap((candidate) => {
      const other = numberedShape(candidate);
      return other && other.pattern === shape.pattern ? [{ candidate, count: other.count }] : [];
    });
    const below = sameShape.filter((entry) => entry.count < shape.count).sort((a, b) => b.count - a.count)[0];
    const above = sameShape.filter((entry) => entry.count > shape.count).sort((a, b) => a.count - b.count)[0];
    const found = [below, above].flatMap((entry) => (entry ? [entry.candidate] : []));
    if (found.length > 0) return found;
  }
  const ranked = sizes.map((candidate) => ({ candidate, edits: distance(size, candidate) })).sort((a, b) => a.edits - b.edits);
  return ranked.filter((entry) => entry.edits <= Math.max(2, Math.floor(size.length / 3)) && entry.edits === ranked[0].edits).slice(0, 2).map((entry) => entry.candidate);
}

/** "standard-16-lssd" -> { pattern: "standard-#-lssd", count: 16 }; "4xlarge" -> { "#xlarge", 4 }; none for "large". */
function numberedShape(size: string): { pattern: string; count: number } | undefined {
  const match = /^(.*?)([0-9]+)(.*)$/.exec(size);
  if (!match) return undefined;
  return { pattern: `${match[1]}#${match[3]}`, count: Number(match[2]) };
}
