/**
 * One picture of each side of a change, per planned cell: the model file's text at the base and at
 * the head (the working tree without --head), parsed once. The review's parts (cost, warnings, import
 * notes, queue, GitLab's side) are differences of these pictures, so a model is read and parsed once
 * per side, not once per part.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseModel, type LoadedModel } from "../model/load";
import type { ChangedCell, ChangedCellsResult } from "./changed-cells";
import { repositoryRoot } from "./changed-cells";
import { CommittedFiles } from "./committed-files";

/** What the review's readers of models are given: where, the head ref (the working tree without one), and the files the commits hold. */
export interface ReviewReadOptions {
  readonly cwd: string;
  readonly head?: string;
  /** Shared by a review's readers, so each file is read once. @default - a set of the call's own */
  readonly files?: CommittedFiles;
  /** The changed cells' models at both sides, read once for every part of a review. @default - read by the call */
  readonly sides?: readonly CellSides[];
}

export function committedFilesOf(options: ReviewReadOptions): CommittedFiles {
  return options.files ?? new CommittedFiles(options.cwd);
}

/** A model file at the head ref, or in the working tree without one; "" when it is not there. */
export async function headModelText(files: CommittedFiles, root: string, file: string, head?: string): Promise<string> {
  return head ? files.text(head, file) : readOrEmpty(join(root, file));
}

function readOrEmpty(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}

export interface ModelSide {
  /** The file's text; "" when the model is not there at that side. */
  readonly text: string;
  /** The parsed model; absent when there is none, or when this version cannot read it (the synth of that side says why). */
  readonly loaded?: LoadedModel;
}

export interface CellSides {
  readonly cell: ChangedCell;
  readonly base: ModelSide;
  readonly head: ModelSide;
}

/** The sides the options carry, or read now. */
export async function cellSidesOf(changed: ChangedCellsResult, options: ReviewReadOptions): Promise<readonly CellSides[]> {
  return options.sides ?? readCellSides(changed, options);
}

export async function readCellSides(changed: ChangedCellsResult, options: ReviewReadOptions): Promise<CellSides[]> {
  const files = committedFilesOf(options);
  const root = await repositoryRoot(options.cwd);
  const out: CellSides[] = [];
  for (const cell of changed.cells) {
    const base = sideOf(await files.text(changed.baseSha, cell.file), cell.file);
    const head = sideOf(await headModelText(files, root, cell.file, options.head), cell.file);
    out.push({ cell, base, head });
  }
  return out;
}

/** A side from its text, for tests and for callers that already hold the text. */
export function sideOf(text: string, file: string): ModelSide {
  if (!text) return { text };
  try {
    return { text, loaded: parseModel(text, file) };
  } catch {
    // An invalid model fails the synth of that side, which the review already reports.
    return { text };
  }
}
