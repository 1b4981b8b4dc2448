/**
 * The text json-stable-stringify 1.x writes when given only `space` (how cdktf writes each stack's
 * Terraform JSON and its manifest): keys sorted, `toJSON()` called without a key, an empty object
 * or array still broken over two lines. The package builds it through bound intrinsics, a fresh
 * indent string per value and a linear search of the ancestors; writing one cell's JSON with it was
 * a tenth of a dry run. cdktf gets this instead, through stableStringifyOr: in the command bundles
 * (build/bundle-commands.js) and in the compiled modules (stacks/stable-json-for-cdktf.ts).
 */
export interface StableStringifyOptions {
  /** Indent per level: a string as it is, a number of spaces. @default - no indent, no line breaks */
  readonly space?: string | number;
}

export function stableStringify(value: unknown, options?: StableStringifyOptions): string | undefined {
  const space = spaceText(options?.space);
  const colon = space ? ": " : ":";
  const indents = [space ? "\n" : ""];
  const indentAt = (level: number) => (indents[level] ??= space ? `\n${space.repeat(level)}` : "");
  const ancestors: object[] = [];

  const write = (input: unknown, level: number): string | undefined => {
    let node = input;
    if (node && typeof (node as { toJSON?: unknown }).toJSON === "function") node = (node as { toJSON: () => unknown }).toJSON();
    if (node === undefined) return undefined;
    if (typeof node !== "object" || node === null) return JSON.stringify(node);
    const indent = indentAt(level);
    const itemIndent = indent + space;
    if (Array.isArray(node)) {
      let text = "[";
      for (let index = 0; index < node.length; index += 1) {
        text += `${index === 0 ? "" : ","}${itemIndent}${write(node[index], level + 1) || "null"}`;
      }
      return `${text}${indent}]`;
    }
    if (ancestors.includes(node)) throw new TypeError("Converting circular structure to JSON");
    ancestors.push(node);
    const record = node as Record<string, unknown>;
    let text = "{";
    let first = true;
    for (const key of Object.keys(record).sort()) {
      const item = write(record[key], level + 1);
      if (!item) continue;
      text += `${first ? "" : ","}${itemIndent}${JSON.stringify(key)}${colon}${item}`;
      first = false;
    }
    ancestors.pop();
    return `${text}${indent}}`;
  };

  return write(value, 0);
}

/** json-stable-stringify's call, as cdktf makes it. */
export type StringifyFunction = (value: unknown, options?: unknown) => string | undefined;

/**
 * What cdktf's `require("json-stable-stringify")` gets: stableStringify for a call with `space` at
 * most (all of cdktf's), and the package itself, loaded by `real` on first need, for any other.
 */
export function stableStringifyOr(real: () => StringifyFunction): StringifyFunction {
  let loaded: StringifyFunction | undefined;
  return (value, options) => (onlySpace(options) ? stableStringify(value, options) : (loaded ??= real())(value, options));
}

function onlySpace(options: unknown): options is StableStringifyOptions | undefined {
  if (options === undefined) return true;
  if (typeof options !== "object" || options === null || !Object.keys(options).every((key) => key === "space")) return false;
  return ["undefined", "string", "number"].includes(typeof (options as { space?: unknown }).space);
}

/** The package's reading of `space`: a number is that many spaces (counted up while below it), anything else falsy none. */
function spaceText(space: string | number | undefined): string {
  if (!space) return "";
  if (typeof space !== "number") return space;
  let text = "";
  for (let count = 0; count < space; count += 1) text += " ";
  return text;
}
