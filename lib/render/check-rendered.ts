/**
 * Rendered files are parsed before anything is synthesized: config.toml by a TOML
 * parser, the boot scripts by `bash -n`. A template that renders something broken
 * (a project bug, not bad input) fails prepare, the dry run and the review with exit
 * 1 and the file named, instead of surfacing on a booting VM.
 */
import { spawnSync } from "node:child_process";
import { parse as parseToml } from "smol-toml";
import { OperationalError } from "../errors";
import type { RenderedFile } from "./rendered-files";

export class RenderedFileError extends OperationalError {
  constructor(readonly cell: string, readonly problems: readonly string[]) {
    super(`cell ${cell}: ${problems.length} rendered file${problems.length === 1 ? " is" : "s are"} broken (a template bug):\n${problems.map((problem) => `  ${problem}`).join("\n")}`);
    this.name = "RenderedFileError";
  }
}

/** Why `file` is broken, or undefined when it parses. */
export function renderedFileProblem(file: RenderedFile): string | undefined {
  const where = `rendered/${file.path} (from templates/${file.template})`;
  if (file.path.endsWith(".toml")) {
    try {
      parseToml(file.content);
      return undefined;
    } catch (error) {
      return `${where} is not valid TOML: ${firstLine(error)}`;
    }
  }
  if (file.path.endsWith(".sh")) {
    const check = spawnSync("bash", ["-n"], { input: file.content, encoding: "utf8" });
    if (check.error) throw new OperationalError(`cannot check ${where} with bash -n: ${check.error.message}`, { cause: check.error });
    return check.status === 0 ? undefined : `${where} fails bash -n: ${check.stderr.trim().split("\n").join("; ")}`;
  }
  return undefined;
}

/** Throws a RenderedFileError listing every broken file of the cell. */
export function checkRenderedFiles(cell: string, files: readonly RenderedFile[]): void {
  const problems = files.map(renderedFileProblem).filter((problem): problem is string => problem !== undefined);
  if (problems.length > 0) throw new RenderedFileError(cell, problems);
}

function firstLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  const { line, column } = error as { line?: number; column?: number };
  const at = line ? ` at line ${line}${column ? `:${column}` : ""}` : "";
  return `${text.replace(/^Invalid TOML document: /, "").split("\n")[0]}${at}`;
}
