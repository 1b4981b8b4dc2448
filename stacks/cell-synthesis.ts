/**
 * The synthesis of a group of cells in one cdktf App, in two steps, so that cells split between
 * threads (stacks/synthesis-threads.ts) are all built, and any model a construct refuses is found,
 * before any of them writes a stack:
 * 1. construct: a CellStack per cell, each resolved to its Terraform JSON (CellStack.resolveAhead);
 * 2. write: cdktf writes each stack; beside it go what reviewers and the summaries need:
 *    - rendered/<shard>/...: each manager's config.toml and startup script, token-free;
 *    - resource-shards.json: which shard each resource address belongs to;
 *    - manager-slots.json: which manager slot each manager template is (provision's roll).
 */
// First: cdktf, loaded by the imports below, then finds archiver's stand-in and the faster stable JSON.
import "./archiver-on-first-use";
import "./stable-json-for-cdktf";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { App } from "cdktf";
import type { StackManifest } from "cdktf/lib/manifest";
import { removeTree } from "../lib/files/remove-tree";
import type { LoadedModel } from "../lib/model/load";
import { renderedFileList, type RenderedShardFiles } from "../lib/render/rendered-files";
import { MANAGER_SLOTS_FILE, managerSlotOfPath, slotKey, type PreviousTemplate } from "../lib/roll/manager-slots";
import { CellStack, type ResourcePaths } from "./cell-stack";
import { skipTokenStackTraces } from "./token-stack-traces";

export interface SynthesizedCell {
  readonly cell: string;
  readonly modelFile: string;
  /** cdktf.out/stacks/<cell> */
  readonly stackDir: string;
  readonly stackJsonFile: string;
  readonly resourceCount: number;
}

/** One cell to synthesize. */
export interface CellRequest {
  readonly loaded: LoadedModel;
  /** The manager slots (`shard/slot`) held at the revision they run. @default none */
  readonly heldManagerSlots?: ReadonlySet<string>;
  /** Google manager slots whose previous template is kept beside the current one. @default none */
  readonly previousTemplates?: ReadonlyMap<string, PreviousTemplate>;
}

/** One cell to synthesize, with its files rendered and checked (stacks/rendered-jobs.ts). */
export interface CellJob extends CellRequest {
  readonly rendered: readonly RenderedShardFiles[];
}

/** cdktf's manifest.json entries, by stack name. */
export type ManifestStacks = Record<string, StackManifest>;

export class CellSynthesis {
  private readonly app: App;
  private readonly stacks: { readonly job: CellJob; readonly stack: CellStack }[];

  /**
   * Step 1: builds each cell's stack (a construct that refuses a model throws here). `progress` is
   * called after each cell built here and each cell written by `write`.
   */
  constructor(jobs: readonly CellJob[], outdir: string, workDir: string, private readonly progress: () => void = () => undefined) {
    // Stack traces on every construct and token cost more than the rest of synth; nobody reads them here.
    skipTokenStackTraces();
    this.app = new App({ outdir, stackTraces: false });
    this.stacks = jobs.map((job) => ({ job, stack: new CellStack(this.app, { model: job.loaded.model, workDir, heldManagerSlots: job.heldManagerSlots, previousTemplates: job.previousTemplates, rendered: job.rendered }) }));
    // Resolved in this step, not while writing: see CellStack.resolveAhead.
    for (const { stack } of this.stacks) {
      stack.resolveAhead();
      progress();
    }
  }

  /**
   * Step 2: writes every stack and the files beside it; manifest.json too unless `manifest` is false
   * (a thread's cells are part of a manifest written once for all, by `writeManifest`).
   */
  write({ manifest = true }: { readonly manifest?: boolean } = {}): SynthesizedCell[] {
    const writeManifestFile = this.app.manifest.writeToFile;
    if (!manifest) this.app.manifest.writeToFile = () => undefined;
    try {
      this.app.synth();
    } finally {
      this.app.manifest.writeToFile = writeManifestFile;
    }
    return this.stacks.map(({ job, stack }) => {
      const cell = writeBesideStack(job, join(this.app.outdir, "stacks", stack.node.id), stack.resourcePaths);
      this.progress();
      return cell;
    });
  }

  /** The manifest entries of this group's stacks (complete after `write`). */
  get manifestStacks(): ManifestStacks {
    return { ...this.app.manifest.stacks };
  }

  /** Writes manifest.json for this group's stacks and `others` (cdktf sorts its keys: the order they come in does not matter). */
  writeManifest(others: ManifestStacks): void {
    Object.assign(this.app.manifest.stacks, others);
    this.app.manifest.writeToFile();
  }
}

function writeBesideStack(job: CellJob, stackDir: string, written: StackJson | undefined): SynthesizedCell {
  const stackJsonFile = join(stackDir, "cdk.tf.json");
  // The resources cdktf just wrote, as CellStack.toTerraform kept them, rather than read back (160 KB of text a
  // cell to parse, and as much garbage); read back where cdktf's own toTerraform wrote it (test/stacks/synthesize.test.ts).
  const stackJson = written ?? (JSON.parse(readFileSync(stackJsonFile, "utf8")) as StackJson);
  writeFileSync(join(stackDir, "resource-shards.json"), `${JSON.stringify(resourceShards(stackJson), null, 2)}\n`);
  writeFileSync(join(stackDir, MANAGER_SLOTS_FILE), `${JSON.stringify(managerSlots(stackJson), null, 2)}\n`);
  // Rewritten whole: a shard renamed or removed since the last synth leaves no stale files behind.
  const renderedDir = join(stackDir, "rendered");
  removeTree(renderedDir);
  const made = new Set<string>();
  for (const file of renderedFileList(job.rendered)) {
    const path = join(renderedDir, file.path);
    // Each directory once: a shard's files share two or three.
    if (!made.has(dirname(path))) mkdirSync(dirname(path), { recursive: true });
    made.add(dirname(path));
    writeFileSync(path, file.content);
  }
  return {
    cell: job.loaded.model.cell.id,
    modelFile: job.loaded.file,
    stackDir,
    stackJsonFile,
    resourceCount: Object.values(stackJson.resource ?? {}).reduce((sum, byName) => sum + Object.keys(byName).length, 0),
  };
}

/** What is read of a stack's JSON here: its resources' construct paths. */
type StackJson = ResourcePaths;

/** Address -> `shard/slot` of every manager template. */
export function managerSlots(stackJson: StackJson): Record<string, string> {
  const slots: Record<string, string> = {};
  for (const [type, byName] of sortedEntries(stackJson.resource ?? {})) {
    for (const [name, body] of sortedEntries(byName)) {
      const slot = managerSlotOfPath(body["//"]?.metadata?.path ?? "");
      if (slot) slots[`${type}.${name}`] = slotKey(slot);
    }
  }
  return slots;
}

/** Address -> shard, from the construct path cdktf records on each resource (".../shard-<name>/..."). */
export function resourceShards(stackJson: StackJson): Record<string, string> {
  const shards: Record<string, string> = {};
  for (const [type, byName] of sortedEntries(stackJson.resource ?? {})) {
    for (const [name, body] of sortedEntries(byName)) {
      const match = /\/shard-([a-z0-9-]+)\//.exec(body["//"]?.metadata?.path ?? "");
      if (match) shards[`${type}.${name}`] = match[1];
    }
  }
  return shards;
}

/**
 * In cdk.tf.json's order (cdktf writes keys sorted, json-stable-stringify's default sort), whether
 * `object` was read back from the file or is the stack's JSON in memory, in the order it was built.
 */
function sortedEntries<T>(object: Record<string, T>): [string, T][] {
  return Object.keys(object)
    .sort()
    .map((key) => [key, object[key]]);
}
