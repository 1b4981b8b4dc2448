/**
 * `review`: what a change does to the synthesized stacks, per cell, without
 * cloud access; which cells a change must plan; and the child pipeline that
 * plans or applies exactly those cells.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { Option, type Command } from "commander";
import { cliCommand, jsonOption, modelsDirOption, withDefault } from "../cli/options";
import type * as ReviewOptionsModule from "./review-options";
import { DEFAULT_CI_IMAGE, renderChildPipeline, type ApplyMode, type ChildPipelineMode } from "../../lib/ci/child-pipeline";
import { runningToolkit, toolkitCommand, type ToolkitInvocation } from "../../lib/ci/toolkit-invocation";
import { readMergeRequestNoteTarget, upsertMergeRequestNote, type NoteUpsertResult } from "../../lib/gitlab/merge-request-note";
import { describeTally } from "../../lib/gitlab/request-pacer";
import { formatMs } from "../../lib/gitlab/retry";
import { listModelFiles, modelsDir as resolveModelsDir } from "../../lib/model/model-files";
import { changedCells, type ChangedCellsResult } from "../../lib/review/changed-cells";
import { CommittedFiles } from "../../lib/review/committed-files";
import { costChanges } from "../../lib/review/cost-change";
import { queueChanges } from "../../lib/review/queue-change";
import { REVIEW_MARKER, renderReviewJson, renderReviewMarkdown, renderReviewText, type ReviewReport } from "../../lib/review/render-review";
import { gitlabChanges } from "../../lib/review/gitlab-changes";
import { readCellSides } from "../../lib/review/model-sides";
import { modelWarnings } from "../../lib/review/model-warnings";
import { fitToNote, reviewArtifact } from "../../lib/review/note-size";
import { importedModelNotes } from "../../lib/review/imported-models";
import { reviewedFiles } from "../../lib/review/reviewed-files";
import { diffStacks } from "../../lib/review/stack-diff";
import { emptySynthOutput, synthRef, synthWorkingTree } from "../../lib/review/synth-ref";
import { toolkitUpgrade } from "../../lib/review/toolkit-upgrade";
import { parseGoDurationSeconds } from "../../lib/model/duration";
import { planRollout } from "../../lib/rollout/rollout-plan";
import type { PlannedWave } from "../../lib/rollout/waves";
import { cellRollMs, rolloutReview, type RolloutReview } from "../../lib/review/rollout-review";
import type { CellSides } from "../../lib/review/model-sides";

export interface ReviewOptions {
  /** Git ref the change is compared with (the MR's diff base). */
  readonly base: string;
  /** Git ref of the changed side. @default - the working tree, uncommitted changes included */
  readonly head?: string;
  /** @default process.cwd() */
  readonly cwd?: string;
  readonly modelsDir?: string;
  /** Synthesize and report only the cells the change plans. */
  readonly changedOnly?: boolean;
  /** Write the markdown review to this file. */
  readonly markdownFile?: string;
  /** Create or update the review note on the merge request of $CI_MERGE_REQUEST_IID. */
  readonly post?: boolean;
  /** Variable holding the GitLab token for --post. @default - GITLAB_REVIEW_TOKEN, else GITLAB_TOKEN */
  readonly tokenEnv?: string;
  readonly env?: NodeJS.ProcessEnv;
}

export interface ReviewResult {
  readonly report: ReviewReport;
  readonly markdown: string;
  readonly note?: NoteUpsertResult;
}

export async function runReview(options: ReviewOptions): Promise<ReviewResult> {
  const env = options.env ?? process.env;
  const cwd = resolve(options.cwd ?? process.cwd());
  // Missing CI variables are a usage error found before minutes of synthesis.
  const noteTarget = options.post ? readMergeRequestNoteTarget(env, options.tokenEnv) : undefined;

  // Each model and trace the review reads at either side, read once (most in one git process).
  const files = new CommittedFiles(cwd);
  const changed = await changedCells({ base: options.base, head: options.head, cwd, modelsDir: options.modelsDir }, files);
  await files.prefetch(reviewedFiles(changed, options.head));
  const cells = options.changedOnly ? changed.cells.map((entry) => entry.cell) : undefined;
  const nothingToSynth = cells !== undefined && cells.length === 0;
  const synthOptions = { cwd, cells, modelsDir: options.modelsDir };
  const [before, after] = nothingToSynth
    ? [emptySynthOutput(), emptySynthOutput()]
    : await Promise.all([
        synthRef(options.base, synthOptions),
        options.head ? synthRef(options.head, synthOptions) : synthWorkingTree(cwd, synthOptions),
      ]);

  // A moved runner-fleet pin (a models repository's upgrade): shown first, with its changelog.
  const upgrade = await toolkitUpgrade({ cwd, baseSha: changed.baseSha, head: options.head });
  // One picture of each side: every changed cell's model at the base and the head, parsed once for every part below.
  const sides = await readCellSides(changed, { cwd, head: options.head, files });
  const read = { cwd, head: options.head, files, sides };
  const diff = diffStacks(before.stacks, after.stacks, { before: before.rendered, after: after.rendered });
  const report: ReviewReport = {
    base: { ref: options.base, sha: changed.baseSha },
    head: { ref: changed.head },
    changedCells: changed,
    changedOnly: Boolean(options.changedOnly),
    diff,
    gitlab: gitlabChanges(sides),
    costs: await costChanges(changed, read),
    modelWarnings: await modelWarnings(changed, read),
    importNotes: await importedModelNotes(changed, read),
    queues: await queueChanges(changed, read),
    ...(upgrade ? { toolkitUpgrade: upgrade } : {}),
    ...reviewRollout(changed, sides, (cell) => diff.cells.find((entry) => entry.cell === cell)?.managers ?? [], { cwd, modelsDir: options.modelsDir }),
  };
  const markdown = renderReviewMarkdown(report);
  if (options.markdownFile) writeFileEnsuringDir(resolve(cwd, options.markdownFile), markdown);
  // The file holds the whole review; the note what GitLab stores of it, with the way to the rest.
  const note = noteTarget ? await upsertMergeRequestNote(noteTarget, fitToNote(markdown, { fullReview: reviewArtifact(env, options.markdownFile) }), REVIEW_MARKER) : undefined;
  return { report, markdown, note };
}

/** The rollout the merge would get (rollout.yaml of the working tree, the head models' labels), when it changes several cells. */
function reviewRollout(
  changed: ChangedCellsResult,
  sides: readonly CellSides[],
  managers: (cell: string) => readonly { readonly replaced: readonly number[] }[],
  options: { readonly cwd: string; readonly modelsDir?: string },
): { rollout?: RolloutReview } {
  const cells = changed.cells.map((entry) => entry.cell);
  if (cells.length < 2) return {};
  const modelOf = (cell: string) => sides.find((side) => side.cell.cell === cell)?.head.loaded?.model;
  const plan = planRollout({ cwd: options.cwd, modelsDir: options.modelsDir, cells, labelsOf: (cell) => modelOf(cell)?.cell.labels });
  const review = rolloutReview(plan.waves, plan.policy, plan.policyFile, (cell) => cellRollMs({ model: modelOf(cell), replacedSlots: managers(cell) }));
  return review ? { rollout: review } : {};
}

export interface ChangedCellsOptions {
  readonly base: string;
  readonly head?: string;
  readonly cwd?: string;
  readonly modelsDir?: string;
}

export function runChangedCells(options: ChangedCellsOptions): Promise<ChangedCellsResult> {
  return changedCells({ ...options, cwd: resolve(options.cwd ?? process.cwd()) });
}

export interface ChildPipelineCommandOptions {
  readonly file: string;
  readonly mode: ChildPipelineMode;
  /** Every cell, whatever changed (a manual "apply everything"), or the cells changed since a git ref. */
  readonly cells: "all" | { readonly changedSince: string };
  readonly cwd?: string;
  readonly modelsDir?: string;
  readonly image?: string;
  /** How apply jobs start (APPLY_MODE in the pipeline). @default "auto" */
  readonly applyMode?: ApplyMode;
  /** How the jobs run the toolkit. @default - this checkout's ./bin/ and ci/ */
  readonly toolkit?: ToolkitInvocation;
}

export interface ChildPipelineResult {
  readonly file: string;
  readonly mode: ChildPipelineMode;
  readonly cells: readonly string[];
  readonly removed: readonly string[];
  readonly reasons: Readonly<Record<string, readonly string[]>>;
  /** Apply mode with two or more cells: the rollout's waves (rollout.yaml). */
  readonly waves?: readonly PlannedWave[];
}

export async function runChildPipeline(options: ChildPipelineCommandOptions): Promise<ChildPipelineResult> {
  const cwd = resolve(options.cwd ?? process.cwd());
  let cells: string[];
  let removed: string[] = [];
  let reasons: Record<string, readonly string[]> = {};
  let base: string;
  if (options.cells === "all") {
    const dir = resolve(cwd, resolveModelsDir(options.modelsDir));
    cells = listModelFiles(dir).map((file) => file.replace(/^.*\//, "").replace(/\.ya?ml$/, ""));
    reasons = Object.fromEntries(cells.map((cell) => [cell, ["--all"]]));
    base = "(all cells)";
  } else {
    base = options.cells.changedSince;
    const changed = await changedCells({ base, cwd, modelsDir: options.modelsDir });
    cells = changed.cells.map((entry) => entry.cell);
    removed = changed.removed.map((entry) => entry.cell);
    reasons = Object.fromEntries(changed.cells.map((entry) => [entry.cell, entry.reasons]));
  }
  // Several cells applied together roll out in waves, each behind the gate of the one before.
  const rollout = options.mode === "apply" && cells.length > 1 ? planRollout({ cwd, modelsDir: options.modelsDir, cells }) : undefined;
  const yaml = renderChildPipeline({
    mode: options.mode,
    cells,
    removed,
    base,
    image: options.image,
    applyMode: options.applyMode,
    toolkit: options.toolkit,
    ...(rollout ? { waves: rollout.waves, gateMaxWaitSeconds: parseGoDurationSeconds(rollout.policy.bake.max_wait) } : {}),
  });
  const file = resolve(cwd, options.file);
  writeFileEnsuringDir(file, yaml);
  return { file, mode: options.mode, cells, removed, reasons, ...(rollout ? { waves: rollout.waves } : {}) };
}

function writeFileEnsuringDir(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
}

export function formatChangedCells(result: ChangedCellsResult): string {
  const lines = [`cells to plan since ${result.base} (${result.baseSha.slice(0, 8)}), ${result.head}:`];
  if (result.cells.length === 0) lines.push("  none");
  for (const cell of result.cells) lines.push(`  ${cell.cell.padEnd(16)} ${cell.reasons.join("; ")}`);
  for (const removed of result.removed) lines.push(`removed ${removed.cell}: ${removed.reason} (not planned for destroy)`);
  return `${lines.join("\n")}\n`;
}

export function reviewCommand(): Command {
  // The help's examples and defaults as the person reading it runs the toolkit (./bin/ here, npx --no-install installed).
  const here = runningToolkit();
  const review = toolkitCommand(here, "review");
  return cliCommand("review")
    .description("Review what a change does to the synthesized stacks of each cell; list the cells to plan; write the child pipeline.")
    .option("--base <ref>", "git ref to compare with (in an MR pipeline: $CI_MERGE_REQUEST_DIFF_BASE_SHA)")
    .addOption(withDefault(new Option("--head <ref>", "git ref of the changed side"), "the working tree"))
    .option("--markdown <file>", "also write the review as markdown (the MR note) to this file")
    .addOption(jsonOption("print JSON instead of text"))
    .option("--post", "create or update the review note on the merge request ($CI_SERVER_URL, $CI_PROJECT_ID, $CI_MERGE_REQUEST_IID)")
    .addOption(withDefault(new Option("--token-env <name>", "variable holding the GitLab token for --post"), "GITLAB_REVIEW_TOKEN, else GITLAB_TOKEN"))
    .option("--changed-only", "synthesize and report only the cells the change plans")
    .option("--changed-cells", "only list the cells the change must plan (and deleted models)")
    .option("--child-pipeline <file>", "write a child pipeline with one job per changed cell to this file")
    .option("--mode <mode>", "with --child-pipeline: plan, apply or drift")
    .addOption(withDefault(new Option("--apply-mode <mode>", "with --mode apply: auto, or manual (each apply job waits for a person)"), "auto"))
    .option("--all", "with --child-pipeline: every cell, whatever changed")
    .addOption(withDefault(new Option("--image <image>", "with --child-pipeline: job image"), DEFAULT_CI_IMAGE))
    .addOption(withDefault(new Option("--toolkit-command <command>", "with --child-pipeline: how jobs run the toolkit, a subcommand follows it"), here.command ?? "./bin/<subcommand>"))
    .addOption(withDefault(new Option("--toolkit-dir <dir>", "with --child-pipeline: directory of the toolkit's ci/ scripts"), here.dir ?? "this checkout"))
    .addOption(modelsDirOption())
    .addHelpText(
      "after",
      `\nExamples:\n  ${review} --base origin/main\n  ${review} --base $CI_MERGE_REQUEST_DIFF_BASE_SHA --markdown review.md --post\n` +
        `  ${review} --changed-cells --base origin/main --json\n  ${review} --child-pipeline child.yml --base HEAD~1 --mode apply\n` +
        "\nExit codes: 0 ok, 2 invalid usage, ref, model or missing CI variables, 1 git/synth/GitLab failure.",
    )
    .action(async (flags: { json?: boolean }, command: Command) => {
      // zod is loaded here, once commander has parsed: --help and --version do not pay for it.
      const { parseReviewOptions } = require("./review-options") as typeof ReviewOptionsModule;
      const { mode, modelsDir } = parseReviewOptions(command);
      const json = Boolean(flags.json);
      const common = { cwd: process.cwd(), modelsDir };
      if (mode.kind === "child-pipeline") {
        const result = await runChildPipeline({ ...common, file: mode.file, mode: mode.pipeline, cells: mode.cells, image: mode.image, applyMode: mode.applyMode, toolkit: mode.toolkit });
        process.stdout.write(
          json
            ? `${JSON.stringify(result, null, 2)}\n`
            : `wrote ${result.file}: ${result.mode} ${result.waves && result.waves.length > 1 ? result.waves.map((wave, index) => `wave ${index + 1} ${wave.name} (${wave.cells.join(", ")})`).join(", then ") : result.cells.length > 0 ? result.cells.join(", ") : "no cell (one no-op job)"}` +
                `${result.removed.length > 0 ? `; deleted models (not destroyed): ${result.removed.join(", ")}` : ""}\n`,
        );
        return;
      }
      if (mode.kind === "changed-cells") {
        const result = await runChangedCells({ ...common, base: mode.base, head: mode.head });
        process.stdout.write(json ? `${JSON.stringify(result, null, 2)}\n` : formatChangedCells(result));
        return;
      }
      const { base, head, changedOnly, markdownFile, post, tokenEnv } = mode;
      const result = await runReview({ ...common, base, head, changedOnly, markdownFile, post, tokenEnv });
      if (json) {
        const payload = JSON.parse(renderReviewJson(result.report)) as Record<string, unknown>;
        process.stdout.write(`${JSON.stringify({ ...payload, note: result.note ?? null }, null, 2)}\n`);
      } else {
        process.stdout.write(renderReviewText(result.report));
        if (result.note) process.stdout.write(`review note ${result.note.action} (note ${result.note.noteId}); ${describeTally(result.note.requests, formatMs)}\n`);
      }
    });
}
