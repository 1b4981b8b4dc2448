/**
 * A gitlab-runner `config.toml` as read for import: the parsed tables (smol-toml, TOML 1.0, as
 * gitlab-runner's BurntSushi/toml reads it) and where each key stands in the file, so a message can
 * say `config.toml:12:5: runners[0].machine.IdleCount`.
 *
 * smol-toml gives no positions for keys, so they are found by a line scan that follows the table
 * headers (`[runners.docker]`, `[[runners.machine.autoscaling]]`, whose index counts per parent) and
 * the `key = value` lines under them. Values that span lines (arrays, multi-line strings) are stepped
 * over. A key the scan cannot place (an inline table's) is reported at its table's header.
 */
import { readFileSync } from "node:fs";
import { parse, TomlError } from "smol-toml";
import { UserInputError } from "../../lib/process/errors";

/** A path into the parsed TOML: table names and array-of-tables indices. */
export type TomlPath = ReadonlyArray<string | number>;

export interface TomlPosition {
  readonly line: number;
  readonly column: number;
}

export interface TomlSource {
  /** The file as named on the command line. */
  readonly file: string;
  readonly text: string;
  readonly data: Record<string, unknown>;
  /** Where `path` (or its nearest enclosing key or table) is written. */
  locate(path: TomlPath): TomlPosition;
}

/** `runners[0].machine.IdleCount`, the way messages name a key. */
export function formatTomlPath(path: TomlPath): string {
  return path.map((part, index) => (typeof part === "number" ? `[${part}]` : index === 0 ? part : `.${part}`)).join("");
}

/** Reads and parses `file`; a missing file or a TOML syntax error is a UserInputError (exit 2) with line:col. */
export function readTomlSource(file: string): TomlSource {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UserInputError(`--config ${file}: cannot read the file (${code === "ENOENT" ? "no such file" : (code ?? "read failed")}); expected a gitlab-runner config.toml`);
  }
  return parseTomlSource(text, file);
}

export function parseTomlSource(text: string, file: string): TomlSource {
  let data: Record<string, unknown>;
  try {
    data = parse(text) as Record<string, unknown>;
  } catch (error) {
    if (error instanceof TomlError) {
      // Only smol-toml's first line: the rest is a code block of the file, which may hold a token.
      const reason = error.message.split("\n")[0];
      throw new UserInputError(`${file}:${error.line}:${error.column}: not valid TOML: ${reason}; expected a gitlab-runner config.toml`);
    }
    throw error;
  }
  const positions = scanPositions(text);
  return {
    file,
    text,
    data,
    locate(path) {
      for (let length = path.length; length > 0; length--) {
        const found = positions.get(pathKey(path.slice(0, length)));
        if (found) return found;
      }
      return { line: 1, column: 1 };
    },
  };
}

function pathKey(path: TomlPath): string {
  return path.map(String).join("\u0000");
}

const HEADER = /^\s*(\[\[?)\s*([^\]]+?)\s*\]\]?\s*(#.*)?$/;
const KEY_LINE = /^(\s*)((?:"[^"]*"|'[^']*'|[A-Za-z0-9_-]+)(?:\s*\.\s*(?:"[^"]*"|'[^']*'|[A-Za-z0-9_-]+))*)\s*=\s*(.*)$/;

/** Positions of table headers and keys, by resolved path. */
function scanPositions(text: string): Map<string, TomlPosition> {
  const positions = new Map<string, TomlPosition>();
  const arrayCounts = new Map<string, number>();
  let table: Array<string | number> = [];
  const lines = text.split(/\r?\n/);
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index];
    if (/^\s*(#|$)/.test(line)) continue;
    const header = HEADER.exec(line);
    if (header) {
      const isArray = header[1] === "[[";
      const names = splitDotted(header[2]);
      const resolved: Array<string | number> = [];
      names.forEach((name, position) => {
        resolved.push(name);
        const key = pathKey(resolved);
        const last = position === names.length - 1;
        if (last && isArray) {
          const count = (arrayCounts.get(key) ?? 0) + 1;
          arrayCounts.set(key, count);
          resolved.push(count - 1);
        } else if (arrayCounts.has(key)) {
          resolved.push(arrayCounts.get(key)! - 1);
        }
      });
      table = resolved;
      positions.set(pathKey(table), { line: index + 1, column: line.indexOf("[") + 1 });
      continue;
    }
    const keyLine = KEY_LINE.exec(line);
    if (!keyLine) continue;
    const path = [...table, ...splitDotted(keyLine[2])];
    if (!positions.has(pathKey(path))) positions.set(pathKey(path), { line: index + 1, column: keyLine[1].length + 1 });
    const end = endOfValue(lines, index, keyLine[3]);
    if (keyLine[3].startsWith("[")) recordArrayItems(lines, index, end, keyLine[0].length - keyLine[3].length, path, positions);
    index = end;
  }
  return positions;
}

/**
 * Positions of the string items of an array value (MachineOptions, one option a line), so a message
 * can point at the item. Items are counted in order; an array of arrays or tables is not itemised.
 */
function recordArrayItems(lines: readonly string[], start: number, end: number, valueColumn: number, path: TomlPath, positions: Map<string, TomlPosition>): void {
  if (/^\[\s*[\[{]/.test(lines[start].slice(valueColumn))) return;
  let item = 0;
  for (let index = start; index <= end; index++) {
    const from = index === start ? valueColumn : 0;
    for (const match of lines[index].slice(from).matchAll(/#.*$|"(?:[^"\\]|\\.)*"|'[^']*'/g)) {
      if (match[0].startsWith("#")) break;
      positions.set(pathKey([...path, item++]), { line: index + 1, column: from + match.index + 1 });
    }
  }
}

/** The last line of a value that starts on `start` (arrays and multi-line strings may span lines). */
function endOfValue(lines: readonly string[], start: number, value: string): number {
  for (const quote of ['"""', "'''"]) {
    if (value.startsWith(quote) && value.indexOf(quote, 3) === -1) {
      for (let index = start + 1; index < lines.length; index++) if (lines[index].includes(quote)) return index;
      return lines.length - 1;
    }
  }
  if (!value.startsWith("[") && !value.startsWith("{")) return start;
  let depth = bracketDepth(value);
  let index = start;
  while (depth > 0 && index + 1 < lines.length) {
    index++;
    depth += bracketDepth(lines[index]);
  }
  return index;
}

/** Opening minus closing brackets outside strings and comments. */
function bracketDepth(text: string): number {
  let depth = 0;
  let quote: string | undefined;
  for (let index = 0; index < text.length; index++) {
    const char = text[index];
    if (quote) {
      if (char === "\\" && quote === '"') index++;
      else if (char === quote) quote = undefined;
    } else if (char === '"' || char === "'") quote = char;
    else if (char === "#") break;
    else if (char === "[" || char === "{") depth++;
    else if (char === "]" || char === "}") depth--;
  }
  return depth;
}

function splitDotted(text: string): string[] {
  const parts: string[] = [];
  const pattern = /\s*("([^"]*)"|'([^']*)'|[A-Za-z0-9_-]+)\s*(\.|$)/gy;
  let match: RegExpExecArray | null;
  while ((match = pattern.exec(text)) && match[0] !== "") {
    parts.push(match[2] ?? match[3] ?? match[1]);
    if (match[4] === "") break;
  }
  return parts;
}
