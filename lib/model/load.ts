/**
 * Reads a model file into a validated `RunnerModel`, or throws a
 * `ModelValidationError` that lists every problem with its line:col.
 *
 * Two stages: the file shape (YAML syntax, then the zod schema with defaults),
 * then the cross-field rules on the resolved model.
 */
import { basename, isAbsolute, resolve } from "node:path";
import { LineCounter, isMap, isNode, isPair, isScalar, isSeq, parseDocument, type Document, type Node } from "yaml";
import type { z } from "zod";
import { workspaceDir } from "../files/workspace";
import { crossCheck } from "./cross-checks";
import { documentStructureIssues, documentToData } from "./document-checks";
import { ModelValidationError, describeValue, redactIssue, type ModelIssue, type ModelPath } from "./issues";
import { firstYamlSyntaxIssue } from "./yaml-errors";
import { duplicateTagFindings } from "./duplicate-tags";
import { nearValueHint, quoteItHint } from "./format-hints";
import { discriminatorValuesAt, knownKeysAt, suggestKey } from "./known-keys";
import { readModelFileBytes } from "./read-model-file";
import { runnerModelSchema, type RunnerModel } from "./schema";
import { tokenMarkerFindings } from "./token-markers";

export interface LoadedModel {
  /** The path the model was read from, as given. */
  readonly file: string;
  readonly model: RunnerModel;
  /** Findings that do not stop the model from being used. */
  readonly warnings: readonly ModelIssue[];
}

export interface LoadOptions {
  /**
   * Require `cell.id` to equal the file's base name (`models/cell-1.yaml` holds cell-1): the
   * pipelines map changed files to cells by name, so a mismatch would plan the wrong cell.
   */
  readonly requireFileNameMatch?: boolean;
  /**
   * The workspace (lib/files/workspace.ts), which a relative `gitlab.ca_file` is relative to, as the
   * model's other relative paths are. @default - workspaceDir(): from $RUNNER_MODELS_DIR, else the
   * current directory. A command with --models-dir passes workspaceDir(its option).
   */
  readonly workspace?: string;
}

export function loadModelFile(file: string, options: LoadOptions = {}): LoadedModel {
  const bytes = readModelFileBytes(file);
  if (bytes.includes(0) || !isUtf8(bytes)) {
    throw new ModelValidationError(file, [
      { severity: "error", file, path: [], line: 1, column: 1, expected: "a UTF-8 YAML text file", received: "binary content" },
    ]);
  }
  const expectedCellId = options.requireFileNameMatch ? basename(file).replace(/\.ya?ml$/, "") : undefined;
  return parseModel(bytes.toString("utf8"), file, expectedCellId, options.workspace);
}

export function parseModel(text: string, file: string, expectedCellId?: string, workspace?: string): LoadedModel {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true, strict: true });
  const at = (offset: number) => lineCounter.linePos(offset);

  if (doc.errors.length > 0) throw new ModelValidationError(file, [firstYamlSyntaxIssue(doc, doc.errors, file, at)]);
  if (doc.contents === null || (isScalar(doc.contents) && doc.contents.value === null)) {
    throw new ModelValidationError(file, [
      { severity: "error", file, path: [], line: 1, column: 1, expected: "a runner model mapping (cell, gitlab, cloud, shards, ...)", received: "an empty document" },
    ]);
  }
  const structureIssues = documentStructureIssues(doc, file, at);
  if (structureIssues.length > 0) throw new ModelValidationError(file, sortByPosition(structureIssues));
  if (!isMap(doc.contents)) {
    const { line, col } = at(doc.contents.range?.[0] ?? 0);
    throw new ModelValidationError(file, [
      {
        severity: "error",
        file,
        path: [],
        line,
        column: col,
        expected: "a mapping at the top level (cell, gitlab, cloud, shards, ...)",
        // Only the kind of what was found: a file that is not a model (--model /etc/passwd) is not echoed.
        received: describeKind(doc.contents),
      },
    ]);
  }

  const converted = documentToData(doc, file, at);
  if ("issues" in converted) throw new ModelValidationError(file, converted.issues);
  const data = converted.data;
  const parsed = runnerModelSchema.safeParse(data);
  const locate = (path: ModelPath, point: Point = "value") => locateNode(doc, path, point, at);
  const writtenAt = (path: ModelPath) => scalarSource(doc, path);
  const markerIssues = tokenMarkerFindings(data).map((finding): ModelIssue => ({ ...finding, file, ...locate(finding.path) }));
  // Checked on the data as written, so it is reported with the schema's errors in one pass.
  const writtenId = valueAt(data, ["cell", "id"]);
  const nameFinding =
    expectedCellId !== undefined && typeof writtenId === "string" && writtenId !== expectedCellId
      ? [{ severity: "error" as const, path: ["cell", "id"], expected: `${JSON.stringify(expectedCellId)}, the file's name (cell.id must equal the file's base name: pipelines map a changed file to its cell by name)`, received: JSON.stringify(writtenId) }]
      : [];
  if (!parsed.success) {
    const issues = parsed.error.issues.flatMap((issue) => zodIssueToModelIssues(issue, data, file, locate, writtenAt));
    const named = nameFinding.map((finding): ModelIssue => ({ ...finding, file, ...locate(finding.path) }));
    throw new ModelValidationError(file, sortByPosition([...issues, ...named, ...markerIssues]));
  }

  const model = withWorkspaceCaFile(parsed.data, workspace);
  const findings = [...nameFinding, ...crossCheck(model), ...duplicateTagFindings(data)].map((finding): ModelIssue => {
    const { line, column } = locate(finding.path);
    return { ...finding, file, line, column };
  });
  const errors = [...markerIssues, ...findings.filter((finding) => finding.severity === "error")];
  if (errors.length > 0) throw new ModelValidationError(file, sortByPosition(errors));
  return { file, model, warnings: sortByPosition(findings).map(redactIssue) };
}

/**
 * A relative gitlab.ca_file made absolute against the workspace, once, here: the checks, the render
 * (the PEM goes to the managers) and the toolkit's own GitLab connection then read the same file
 * whichever directory the command runs in. Only the PEM's content reaches the machines, never this
 * path, so the Terraform JSON does not depend on where the workspace is.
 */
function withWorkspaceCaFile(model: RunnerModel, workspace: string | undefined): RunnerModel {
  const caFile = model.gitlab.ca_file;
  if (caFile === undefined || isAbsolute(caFile)) return model;
  return { ...model, gitlab: { ...model.gitlab, ca_file: resolve(workspace ?? workspaceDir(), caFile) } };
}

/** Where a position points for the last key of a path: at its value, or (for unknown keys) at the key itself. */
type Point = "value" | "key";
type Locate = (path: ModelPath, point?: Point) => { line: number; column: number };

function zodIssueToModelIssues(issue: z.core.$ZodIssue, data: unknown, file: string, locate: Locate, writtenAt: (path: ModelPath) => string | undefined): ModelIssue[] {
  const path = issue.path.filter((part): part is string | number => typeof part !== "symbol");
  if (issue.code === "unrecognized_keys") {
    const known = knownKeysAt(runnerModelSchema, path, data);
    return issue.keys.map((key) => {
      const suggestion = suggestKey(key, known);
      const { line, column } = locate([...path, key], "key");
      return {
        severity: "error",
        file,
        path: [...path, key],
        line,
        column,
        expected: known.length > 0 ? `one of the known keys: ${known.join(", ")}` : "no further keys",
        received: `unknown key ${JSON.stringify(key)}`,
        hint: suggestion ? `did you mean "${suggestion}"?` : undefined,
      };
    });
  }
  const received = valueAt(data, path);
  const { line, column } = locate(path);
  // A refinement may say why in `params.hint` (the cron dialect's reason, for one); a format missed
  // closely, or a number where text was wanted, gets the value that would pass (format-hints.ts).
  const hint =
    issue.code === "custom" && typeof issue.params?.hint === "string"
      ? issue.params.hint
      : issue.code === "invalid_type" && issue.expected === "string"
        ? quoteItHint(path, received, writtenAt(path))
        : issue.code === "custom" || issue.code === "invalid_format"
          ? nearValueHint(path, received)
          : undefined;
  return [{ severity: "error", file, path, line, column, expected: expectedText(issue, received), received: describeValue(received), hint }];
}

/** Words for what the schema wanted; our own refinement messages are used as written. */
function expectedText(issue: z.core.$ZodIssue, received: unknown): string {
  switch (issue.code) {
    case "invalid_type":
      return received === undefined ? `${typeWord(issue.expected)} (required)` : typeWord(issue.expected);
    case "invalid_value":
      return `one of ${issue.values.map((value) => JSON.stringify(value)).join(", ")}`;
    case "too_small":
      return boundText("at least", issue.origin, issue.minimum, issue.inclusive);
    case "too_big":
      return boundText("at most", issue.origin, issue.maximum, issue.inclusive);
    case "invalid_union": {
      const values = discriminatorValuesAt(runnerModelSchema, issue.path.slice(0, -1) as ModelPath, issue.path.at(-1));
      if (values.length > 0) return `one of ${values.map((value) => JSON.stringify(value)).join(", ")}`;
      // A union that names its forms itself (`{ error: ... }`) says them best; zod's own messages start with "Invalid".
      return issue.message.startsWith("Invalid") ? "one of the accepted forms" : issue.message;
    }
    case "invalid_format":
      return plainWords(issue.message, FORMAT_WORDS[issue.format] ?? `text in the ${issue.format} format`);
    case "custom":
      return issue.message;
    default:
      return plainWords(issue.message, "a value of the accepted form (see the key's description in models/schema.json)");
  }
}

/** zod's own wording ("Invalid email address") never reaches a message; our refinements' messages do. */
function plainWords(message: string, fallback: string): string {
  return /^Invalid\b/.test(message) ? fallback : message;
}

const FORMAT_WORDS: Readonly<Record<string, string>> = {
  email: "an email address such as runner-oncall@example.com",
  url: "a URL such as https://example.com/hook",
  regex: "text of the form the key's description gives",
};

function typeWord(expected: string): string {
  const words: Record<string, string> = {
    object: "a mapping",
    array: "a list",
    string: "a string",
    number: "a number",
    int: "a whole number",
    boolean: "true or false",
    record: "a mapping",
  };
  return words[expected] ?? expected;
}

function boundText(word: string, origin: string, bound: number | bigint, inclusive?: boolean): string {
  if (origin === "array") return `${word} ${bound} item${bound === 1 ? "" : "s"}`;
  if (origin === "string") return `${word} ${bound} character${bound === 1 ? "" : "s"}`;
  const symbol = word === "at least" ? (inclusive === false ? ">" : ">=") : inclusive === false ? "<" : "<=";
  return `a number ${symbol} ${bound}`;
}

function valueAt(data: unknown, path: ModelPath): unknown {
  let current: unknown = data;
  for (const part of path) {
    if (current === null || typeof current !== "object") return undefined;
    current = (current as Record<string | number, unknown>)[part];
  }
  return current;
}

/**
 * Position of the node at `path`; for a path that does not exist (a missing key),
 * the position of the deepest ancestor that does. `point` "key": the key of the
 * last pair rather than its value (for unknown keys).
 */
function locateNode(
  doc: Document,
  path: ModelPath,
  point: Point,
  at: (offset: number) => { line: number; col: number },
): { line: number; column: number } {
  let node: Node | null = doc.contents;
  let offset = node?.range?.[0] ?? 0;
  for (const part of path) {
    if (isMap(node)) {
      const pair = node.items.find((item) => isPair(item) && isScalar(item.key) && item.key.value === part);
      if (!pair) break;
      const key = isNode(pair.key) ? pair.key : null;
      const value = isNode(pair.value) ? pair.value : null;
      if (point === "key" && part === path[path.length - 1] && key?.range) {
        offset = key.range[0];
        break;
      }
      offset = (value?.range ?? key?.range)?.[0] ?? offset;
      node = value;
    } else if (isSeq(node) && typeof part === "number") {
      const item = node.items[part];
      if (!isNode(item)) break;
      offset = item.range?.[0] ?? offset;
      node = item;
    } else {
      break;
    }
  }
  const { line, col } = at(offset);
  return { line, column: col };
}

/** The text of the scalar at `path` as written in the file (`18.10`, which YAML reads as the number 18.1). */
function scalarSource(doc: Document, path: ModelPath): string | undefined {
  const node = doc.getIn(path, true);
  return isScalar(node) && typeof node.source === "string" ? node.source : undefined;
}

/** Line and column of `path` in a model file (its deepest existing ancestor when the key is missing). */
export function locateInModelFile(file: string, path: ModelPath): { line: number; column: number } {
  const lineCounter = new LineCounter();
  // The file was loaded (and checked) before: this reads it again only to point at a key.
  const doc = parseDocument(readModelFileBytes(file).toString("utf8"), { lineCounter, prettyErrors: false });
  return locateNode(doc, path, "value", (offset) => lineCounter.linePos(offset));
}

function sortByPosition<T extends { line: number; column: number }>(issues: T[]): T[] {
  return [...issues].sort((a, b) => a.line - b.line || a.column - b.column);
}

function describeKind(node: Node): string {
  if (isSeq(node)) return `a list of ${node.items.length}`;
  if (isScalar(node)) return typeof node.value === "string" ? `text (${node.value.length} characters)` : `a ${typeof node.value}`;
  return "not a mapping";
}

function isUtf8(bytes: Buffer): boolean {
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}
