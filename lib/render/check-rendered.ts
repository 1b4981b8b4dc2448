/**
 * Rendered files are parsed before anything is synthesized: config.toml by a TOML
 * parser, the boot scripts by `bash -n`. A template that renders something broken
 * (a project bug, not bad input) fails prepare, the dry run and the review with exit
 * 1 and the file named, instead of surfacing on a booting VM.
 */
import { parse as parseToml } from "smol-toml";
import { OperationalError } from "../process/errors";
import { BashUnavailableError, checkBashSyntax } from "./bash-syntax";
import { isBootScript, parsePayload } from "./boot-payload";
import type { RenderedFile } from "./rendered-files";

export class RenderedFileError extends OperationalError {
  constructor(readonly cell: string, readonly problems: readonly string[]) {
    super(`cell ${cell}: ${problems.length} rendered file${problems.length === 1 ? " is" : "s are"} broken (a template bug):\n${problems.map((problem) => `  ${problem}`).join("\n")}`);
    this.name = "RenderedFileError";
  }
}

export interface CellRenderedFiles {
  readonly cell: string;
  readonly files: readonly RenderedFile[];
}

/** Why `file` is broken, or undefined when it parses. */
export function renderedFileProblem(file: RenderedFile): string | undefined {
  return renderedFileProblems([file])[0];
}

/**
 * Why each of `files` is broken (undefined when it parses), in order. The scripts of
 * all files are checked by one bash process: a spawn per script made synth slow.
 */
export function renderedFileProblems(files: readonly RenderedFile[]): (string | undefined)[] {
  // A payload's own text, and each script it writes: bash -n on the payload does not parse its heredocs.
  const scripts = files
    .filter((file) => file.path.endsWith(".sh"))
    .flatMap((file) => {
      const { files: written, skeleton } = parsePayload(file.content);
      return [
        { file, inner: undefined as string | undefined, content: skeleton },
        ...written.filter(isBootScript).map((inner) => ({ file, inner: inner.path as string | undefined, content: inner.content })),
      ];
    });
  const bashResults = new Map<RenderedFile, { ok: boolean; stderr: string }>();
  if (scripts.length > 0) {
    // Every manager's payload writes the same scripts: each distinct text is checked once (100 cells
    // would otherwise run bash -n thousands of times on a dozen files).
    const distinct = [...new Set(scripts.map((script) => script.content))];
    let results;
    try {
      const checked = checkBashSyntax(distinct);
      const byContent = new Map(distinct.map((content, index) => [content, checked[index]]));
      results = scripts.map((script) => byContent.get(script.content)!);
    } catch (error) {
      if (!(error instanceof BashUnavailableError)) throw error;
      throw new OperationalError(`cannot check ${where(scripts[0].file)} with bash -n: ${error.message}`, { cause: error });
    }
    scripts.forEach((script, index) => {
      const result = results[index];
      if (bashResults.has(script.file) && bashResults.get(script.file)?.ok === false) return;
      const stderr = script.inner === undefined ? result.stderr : `${script.inner}: ${result.stderr}`;
      bashResults.set(script.file, { ok: result.ok, stderr });
    });
  }
  return files.map((file) => {
    if (file.path.endsWith(".toml")) {
      try {
        parseToml(file.content);
        return undefined;
      } catch (error) {
        return `${where(file)} is not valid TOML: ${firstLine(error)}`;
      }
    }
    const bash = bashResults.get(file);
    if (bash && !bash.ok) return `${where(file)} fails bash -n: ${bash.stderr.trim().split("\n").join("; ")}`;
    return undefined;
  });
}

/** Each cell's RenderedFileError (undefined for a cell whose files all parse), in order; one bash process for all. */
export function renderedCellErrors(cells: readonly CellRenderedFiles[]): (RenderedFileError | undefined)[] {
  const problems = renderedFileProblems(cells.flatMap((cell) => cell.files));
  let offset = 0;
  return cells.map(({ cell, files }) => {
    const found = problems.slice(offset, offset + files.length).filter((problem): problem is string => problem !== undefined);
    offset += files.length;
    return found.length > 0 ? new RenderedFileError(cell, found) : undefined;
  });
}

/** Throws the RenderedFileError of the first cell with broken files, listing every broken file of that cell. */
export function checkRenderedCells(cells: readonly CellRenderedFiles[]): void {
  const error = renderedCellErrors(cells).find((cellError) => cellError !== undefined);
  if (error) throw error;
}

/** Throws a RenderedFileError listing every broken file of the cell. */
export function checkRenderedFiles(cell: string, files: readonly RenderedFile[]): void {
  checkRenderedCells([{ cell, files }]);
}

function where(file: RenderedFile): string {
  return `rendered/${file.path} (from templates/${file.template})`;
}

function firstLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  const { line, column } = error as { line?: number; column?: number };
  const at = line ? ` at line ${line}${column ? `:${column}` : ""}` : "";
  return `${text.replace(/^Invalid TOML document: /, "").split("\n")[0]}${at}`;
}
