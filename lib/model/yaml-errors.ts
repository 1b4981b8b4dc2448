/**
 * A YAML syntax error in plain words, at the key it concerns. The yaml library's messages
 * are parser jargon ("Nested mappings are not allowed in compact mappings") and carry no key
 * path; one slip (a de-indented key) also sets off further errors that are only its echo.
 * So only the first error is reported, with the path of the key on its line and what to change.
 * Error codes: yaml's ErrorCode (https://eemeli.org/yaml/#errors).
 */
import { isMap, isPair, isScalar, isSeq, visit, type Document, type Node, type YAMLError } from "yaml";
import type { ModelIssue, ModelPath } from "./issues";

type At = (offset: number) => { line: number; col: number };

const PLAIN_WORDS: Readonly<Record<string, string>> = {
  BAD_INDENT: "the keys of one mapping indented to the same column as the keys beside them (this line's indentation matches no mapping above it)",
  DUPLICATE_KEY: "each key once in a mapping (keys must be unique; the later one would silently replace the earlier)",
  MISSING_CHAR: "a closing ] or } or quote for the list, mapping or text that starts above",
  BLOCK_AS_IMPLICIT_KEY: "a line break after a key whose value is a nested mapping, or quotes around a value that contains \": \"",
  MULTILINE_IMPLICIT_KEY: "a key on one line, followed by \":\" (or quotes around a value that spans lines)",
  TAB_AS_INDENT: "spaces for indentation (YAML does not allow tabs)",
  UNEXPECTED_TOKEN: "a key: value pair or a list item here",
  BAD_SCALAR_START: "quotes around a value that starts with a special character (@, `, %, |, >)",
  BAD_ALIAS: "an alias (*name) that refers to an anchor (&name)",
  MULTIPLE_DOCS: "one YAML document (no second ---)",
};

/** The first syntax error of `doc` as an issue; the rest are most often its echo. */
export function firstYamlSyntaxIssue(doc: Document, errors: readonly YAMLError[], file: string, at: At): ModelIssue {
  const first = [...errors].sort((a, b) => a.pos[0] - b.pos[0])[0];
  const more = errors.length > 1 ? `; ${errors.length - 1} later syntax error(s) not shown, often caused by this one` : "";
  const unclosed = unclosedFlowCollection(doc, first);
  if (unclosed) return unclosedIssue(doc, unclosed, first, file, at, more);
  const { line, col } = at(first.pos[0]);
  const words = first.message.includes("Nested mappings") ? PLAIN_WORDS.BLOCK_AS_IMPLICIT_KEY : PLAIN_WORDS[first.code];
  const key = keyOnLine(doc, line, at);
  return {
    severity: "error",
    file,
    path: key?.path ?? [],
    line,
    column: col,
    expected: `valid YAML: ${words ?? first.message.split("\n")[0]}`,
    received: key ? `the key ${JSON.stringify(key.name)} at column ${key.column}${more}` : `the text at line ${line}${more}`,
  };
}

/**
 * A `[` or `{` never closed (`tags: [linux, docker` and no `]`): yaml reads on into the next line and
 * reports BAD_INDENT there ("Flow sequence in block collection must be sufficiently indented and end
 * with a ]", yaml's resolve-flow-collection.ts), or MISSING_CHAR at the end of the document. Either
 * way the collection's node ends where the error is: the `[` is what the person has to fix.
 */
function unclosedFlowCollection(doc: Document, error: YAMLError): { start: number; close: "]" | "}" } | undefined {
  if (error.code !== "BAD_INDENT" && error.code !== "MISSING_CHAR") return undefined;
  let found: { start: number; close: "]" | "}" } | undefined;
  visit(doc, (_key, node) => {
    if (!(isSeq(node) || isMap(node)) || !node.flow || !node.range) return;
    // The innermost collection that stops at the error and opened before it.
    if (node.range[1] === error.pos[0] && node.range[0] < error.pos[0]) found = { start: node.range[0], close: isSeq(node) ? "]" : "}" };
  });
  return found;
}

function unclosedIssue(doc: Document, unclosed: { start: number; close: "]" | "}" }, error: YAMLError, file: string, at: At, more: string): ModelIssue {
  const open = at(unclosed.start);
  const stop = at(error.pos[0]);
  const key = keyOnLine(doc, open.line, at);
  const kind = unclosed.close === "]" ? "list" : "mapping";
  const opener = unclosed.close === "]" ? "[" : "{";
  return {
    severity: "error",
    file,
    path: key?.path ?? [],
    line: open.line,
    column: open.col,
    expected: `valid YAML: a closing ${unclosed.close} for the ${kind} that opens with "${opener}" here, on line ${open.line}`,
    received: `no ${unclosed.close} before ${stop.line > open.line ? `line ${stop.line}` : "the end of the line"}${more}`,
  };
}

/** The key that starts on `line` (or the last key before it), with its path in the document. */
function keyOnLine(doc: Document, line: number, at: At): { path: ModelPath; name: string; column: number } | undefined {
  let found: { path: ModelPath; name: string; column: number } | undefined;
  visit(doc, {
    Pair(_key, pair, ancestors) {
      if (!isScalar(pair.key) || !pair.key.range) return;
      const position = at(pair.key.range[0]);
      if (position.line > line) return visit.BREAK;
      found = { path: [...pathOf(ancestors), String(pair.key.value)], name: String(pair.key.value), column: position.col };
      return position.line === line ? visit.BREAK : undefined;
    },
  });
  return found;
}

function pathOf(ancestors: readonly unknown[]): Array<string | number> {
  const path: Array<string | number> = [];
  ancestors.forEach((ancestor, index) => {
    const child = ancestors[index + 1];
    if (child === undefined) return;
    if (isPair(ancestor) && ancestor.value === child && isScalar(ancestor.key)) path.push(String(ancestor.key.value));
    if (isSeq(ancestor)) path.push(ancestor.items.indexOf(child as Node));
  });
  return path;
}
