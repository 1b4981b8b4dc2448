/**
 * The imported model as YAML text (the `yaml` library's Document, so values are data, never YAML
 * syntax), with a comment block on top: where it came from, what the import chose, which runners
 * it adopts, and every key it could not map, key by key. The review reads the marker and the
 * adopted runners back (lib/review/imported-models.ts) to say that the runners are adopted, not created.
 */
import { Document, isMap, isSeq, type YAMLMap } from "yaml";
import { ADOPTED_RUNNERS_HEADING, IMPORTED_MODEL_MARKER } from "../../lib/model/import-marker";
import type { UnmappedKey } from "./key-ledger";

export interface ModelTextInput {
  readonly model: Record<string, unknown>;
  readonly files: readonly string[];
  readonly notes: readonly string[];
  readonly unmapped: readonly UnmappedKey[];
  /** "shard x adopts runner #12 ..." lines, when --adopt ran. */
  readonly adoption: readonly string[];
  readonly now: Date;
  /** What prepare refuses in this model (import --write-refused): listed first, to fix before anything else. */
  readonly refused?: readonly string[];
}

export function formatUnmapped(key: UnmappedKey): string {
  return `${key.file}:${key.line}:${key.column}: ${key.key}: ${key.reason}`;
}

export function importedModelText(input: ModelTextInput): string {
  const doc = new Document(input.model);
  const lines = [
    " yaml-language-server: $schema=./schema.json",
    ` ${IMPORTED_MODEL_MARKER} from ${input.files.join(", ")} on ${input.now.toISOString().slice(0, 10)}.`,
    " Review every value before the first onboard. No runner token is in this file.",
    "",
    ...(input.refused && input.refused.length > 0
      ? [" PREPARE REFUSES THIS MODEL until these are fixed (written with import --write-refused):", ...input.refused.map((line) => `   - ${line}`), ""]
      : []),
    " What the import chose or changed:",
    ...input.notes.map((note) => `   - ${note}`),
  ];
  if (input.adoption.length > 0) lines.push("", ` ${ADOPTED_RUNNERS_HEADING}`, ...input.adoption.map((line) => `   - ${line}`));
  lines.push("", ` Not imported (${input.unmapped.length} key${input.unmapped.length === 1 ? "" : "s"} with no place in the model):`);
  lines.push(...(input.unmapped.length > 0 ? input.unmapped.map((key) => `   - ${formatUnmapped(key)}`) : ["   (none)"]));
  doc.commentBefore = lines.join("\n");
  flowShortLists(doc.contents as YAMLMap);
  return doc.toString({ lineWidth: 0, flowCollectionPadding: false });
}

/** Lists of scalars (tags, zones, periods, volumes) on one line, as the example models write them. */
function flowShortLists(node: unknown): void {
  if (isMap(node)) for (const item of node.items) flowShortLists(item.value);
  if (isSeq(node)) {
    if (node.items.every((item) => !isMap(item) && !isSeq(item))) node.flow = true;
    else for (const item of node.items) flowShortLists(item);
  }
}
