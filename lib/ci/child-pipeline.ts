/**
 * The child pipeline an MR or a default-branch pipeline triggers: one job per
 * changed cell, so a change to one model plans (or applies) only that cell.
 * Plan jobs keep the plan and its summary as artifacts; apply jobs hold the
 * cell's resource group so two applies of one cell never run at once.
 */
import { template } from "../render/handlebars";

export type ChildPipelineMode = "plan" | "apply";

export interface ChildPipelineOptions {
  readonly mode: ChildPipelineMode;
  /** Cells to plan or apply (model names). */
  readonly cells: readonly string[];
  /** Models deleted by the change: listed in a warning job, never destroyed. @default [] */
  readonly removed?: readonly string[];
  /** What the cells were compared with, for the header and the no-op message. */
  readonly base: string;
  /** @default "node:20-bookworm" */
  readonly image?: string;
}

export const DEFAULT_CI_IMAGE = "node:20-bookworm";

interface JobContext {
  readonly name: string;
  readonly resourceGroup?: string;
  readonly environment?: string;
  readonly script: readonly string[];
  readonly artifacts?: { readonly paths: readonly string[]; readonly exclude: readonly string[] };
}

interface ChildPipelineContext {
  readonly mode: ChildPipelineMode;
  readonly stage: string;
  readonly base: string;
  readonly image: string;
  readonly jobs: readonly JobContext[];
  readonly removed: readonly string[];
  readonly noop?: { readonly name: string; readonly message: string };
}

/** The resource group that serializes every change to one cell (also used by triggered pipelines). */
export function cellResourceGroup(cell: string): string {
  return `runner-fleet-${cell}`;
}

export function planJob(cell: string): JobContext {
  const out = `plan-out/${cell}`;
  return {
    name: `plan:${cell}`,
    resourceGroup: undefined,
    environment: undefined,
    script: [
      // --skip-onboard: a merge request must not register runners in GitLab before it is merged.
      `./bin/provision --model ${shellQuote(cell)} --plan --skip-onboard --out ${shellQuote(out)} --markdown ${shellQuote(`plan-${cell}.md`)} --post --json > ${shellQuote(`plan-${cell}.json`)}`,
    ],
    artifacts: {
      paths: [`plan-${cell}.json`, `plan-${cell}.md`, `${out}/`],
      // Provider binaries and module caches are large and not part of the review.
      exclude: [`${out}/**/.terraform/**`],
    },
  };
}

export function applyJob(cell: string): JobContext {
  return {
    name: `apply:${cell}`,
    resourceGroup: cellResourceGroup(cell),
    environment: `runner-fleet/${cell}`,
    script: [
      `./bin/provision --model ${shellQuote(cell)} --auto-approve`,
      `./bin/onboard --model ${shellQuote(cell)} --status --require-online`,
    ],
    artifacts: undefined,
  };
}

export function renderChildPipeline(options: ChildPipelineOptions): string {
  const cells = [...new Set(options.cells)].sort();
  for (const cell of [...cells, ...(options.removed ?? [])]) {
    if (!/^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/.test(cell)) throw new Error(`cell name "${cell}" is not a DNS label`);
  }
  const removed = [...(options.removed ?? [])].sort();
  const context: ChildPipelineContext = {
    mode: options.mode,
    stage: options.mode,
    base: options.base,
    image: options.image ?? DEFAULT_CI_IMAGE,
    jobs: cells.map(options.mode === "plan" ? planJob : applyJob),
    removed: removed.map(
      (cell) =>
        `echo ${shellQuote(`model of cell ${cell} was deleted: its infrastructure is NOT destroyed; run ./bin/provision --model ${cell} --destroy from a checkout that still has the model`)}`,
    ),
    noop:
      cells.length === 0
        ? {
            name: `no-cell-to-${options.mode}`,
            message: `echo ${shellQuote(`no runner model or shared code changed since ${options.base}: nothing to ${options.mode}`)}`,
          }
        : undefined,
  };
  return template<ChildPipelineContext>("ci/cells.gitlab-ci.yml.hbs")(context);
}

/** Single-quotes a word for sh. */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
