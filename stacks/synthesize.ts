/**
 * Synthesizes cells in-process (no cdktf CLI needed) and writes, beside each
 * stack, what reviewers and the summaries need:
 * - rendered/<shard>/...: each manager's config.toml and startup script, token-free;
 * - resource-shards.json: which shard each resource address belongs to;
 * - manager-slots.json: which manager slot each manager template is (provision's roll).
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { App } from "cdktf";
import { ensureOutputDirectory } from "../lib/files/output-directory";
import { defaultSynthOutDir, workspaceDir } from "../lib/files/workspace";
import type { LoadedModel } from "../lib/model/load";
import { checkRenderedCells } from "../lib/render/check-rendered";
import { renderCellFiles, renderedFileList } from "../lib/render/rendered-files";
import { MANAGER_SLOTS_FILE, managerSlotOfPath, slotKey } from "../lib/roll/manager-slots";
import { CellStack } from "./cell-stack";
import { skipTokenStackTraces } from "./token-stack-traces";

export interface SynthesizedCell {
  readonly cell: string;
  readonly modelFile: string;
  /** cdktf.out/stacks/<cell> */
  readonly stackDir: string;
  readonly stackJsonFile: string;
  readonly resourceCount: number;
}

export interface SynthesizeOptions {
  /** Output directory. @default $CDKTF_OUTDIR (set by the cdktf CLI), else cdktf.out in `workDir` */
  readonly outdir?: string;
  /** Resolves relative local state paths. @default the workspace (lib/files/workspace.ts) */
  readonly workDir?: string;
  /** Per cell, the manager slots (`shard/slot`) to hold at the revision they run. @default none */
  readonly heldManagerSlots?: ReadonlyMap<string, ReadonlySet<string>>;
}

export function synthesizeCells(models: readonly LoadedModel[], options: SynthesizeOptions = {}): SynthesizedCell[] {
  const workDir = options.workDir ?? workspaceDir();
  const outdir = options.outdir ?? process.env.CDKTF_OUTDIR ?? defaultSynthOutDir(workDir);
  ensureOutputDirectory(outdir, "the synthesis output directory");
  // Parsed first: a broken template stops here, naming the file, before any stack is written.
  // Rendered once: the check, the files written for review and the stack's templates get the same content.
  const rendered = models.map((loaded) => renderCellFiles(loaded.model));
  const files = rendered.map(renderedFileList);
  checkRenderedCells(models.map((loaded, index) => ({ cell: loaded.model.cell.id, files: files[index] })));
  // Stack traces on every construct and token cost more than the rest of synth; nobody reads them here.
  skipTokenStackTraces();
  const app = new App({ outdir, stackTraces: false });
  const stacks = models.map((loaded, index) => ({ loaded, stack: new CellStack(app, { model: loaded.model, workDir, heldManagerSlots: options.heldManagerSlots?.get(loaded.model.cell.id), rendered: rendered[index] }) }));
  app.synth();

  return stacks.map(({ loaded, stack }, index) => {
    const stackDir = join(app.outdir, "stacks", stack.node.id);
    const stackJsonFile = join(stackDir, "cdk.tf.json");
    const stackJson = JSON.parse(readFileSync(stackJsonFile, "utf8")) as StackJson;
    writeFileSync(join(stackDir, "resource-shards.json"), `${JSON.stringify(resourceShards(stackJson), null, 2)}\n`);
    writeFileSync(join(stackDir, MANAGER_SLOTS_FILE), `${JSON.stringify(managerSlots(stackJson), null, 2)}\n`);
    // Rewritten whole: a shard renamed or removed since the last synth leaves no stale files behind.
    const renderedDir = join(stackDir, "rendered");
    rmSync(renderedDir, { recursive: true, force: true });
    for (const file of files[index]) {
      const path = join(renderedDir, file.path);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, file.content);
    }
    return {
      cell: loaded.model.cell.id,
      modelFile: loaded.file,
      stackDir,
      stackJsonFile,
      resourceCount: Object.values(stackJson.resource ?? {}).reduce((sum, byName) => sum + Object.keys(byName).length, 0),
    };
  });
}

interface StackJson {
  resource?: Record<string, Record<string, { "//"?: { metadata?: { path?: string } } }>>;
}

/** Address -> `shard/slot` of every manager template. */
export function managerSlots(stackJson: StackJson): Record<string, string> {
  const slots: Record<string, string> = {};
  for (const [type, byName] of Object.entries(stackJson.resource ?? {})) {
    for (const [name, body] of Object.entries(byName)) {
      const slot = managerSlotOfPath(body["//"]?.metadata?.path ?? "");
      if (slot) slots[`${type}.${name}`] = slotKey(slot);
    }
  }
  return slots;
}

/** Address -> shard, from the construct path cdktf records on each resource (".../shard-<name>/..."). */
export function resourceShards(stackJson: StackJson): Record<string, string> {
  const shards: Record<string, string> = {};
  for (const [type, byName] of Object.entries(stackJson.resource ?? {})) {
    for (const [name, body] of Object.entries(byName)) {
      const match = /\/shard-([a-z0-9-]+)\//.exec(body["//"]?.metadata?.path ?? "");
      if (match) shards[`${type}.${name}`] = match[1];
    }
  }
  return shards;
}
