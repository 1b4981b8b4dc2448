/**
 * review's flags, parsed once into a ReviewMode: review a change, list the cells it must plan, or write
 * the child pipeline that plans, applies or checks them. Loaded inside the action (it imports zod):
 * see app/cli/parse-options.ts.
 */
import type { Command } from "commander";
import { z } from "zod";
import { APPLY_MODES, type ApplyMode, type ChildPipelineMode } from "../../lib/ci/child-pipeline";
import { runningToolkit, TOOLKIT_COMMAND_PATTERN, TOOLKIT_DIR_PATTERN, type ToolkitInvocation } from "../../lib/ci/toolkit-invocation";
import { cannotCombineWith, goWith, listOf, modeFlags, parseOptions, selectMode } from "../cli/parse-options";

export type ReviewMode =
  /** What the change from `base` to `head` (default: the working tree) does to every cell's stack. */
  | {
      readonly kind: "review";
      readonly base: string;
      readonly head?: string;
      /** Synthesize and report only the cells the change plans. */
      readonly changedOnly: boolean;
      readonly markdownFile?: string;
      /** Create or update the review note on the merge request of $CI_MERGE_REQUEST_IID. */
      readonly post: boolean;
      /** Variable holding the GitLab token for `post`. @default - GITLAB_REVIEW_TOKEN, else GITLAB_TOKEN */
      readonly tokenEnv?: string;
    }
  /** Only list the cells the change must plan (and the deleted models). */
  | { readonly kind: "changed-cells"; readonly base: string; readonly head?: string }
  /** Write a child pipeline with one job per cell: every cell, or the cells changed since a git ref. */
  | {
      readonly kind: "child-pipeline";
      readonly file: string;
      readonly pipeline: ChildPipelineMode;
      readonly applyMode: ApplyMode;
      readonly image?: string;
      readonly cells: "all" | { readonly changedSince: string };
      /** How the child pipeline's jobs run the toolkit (the component's toolkit_command and toolkit_dir). */
      readonly toolkit: ToolkitInvocation;
    };

export interface ReviewCliOptions {
  readonly mode: ReviewMode;
  readonly modelsDir?: string;
}

const PIPELINE_MODES = ["plan", "apply", "drift"] as const satisfies readonly ChildPipelineMode[];

const settings = {
  modelsDir: z.string().optional(),
  json: z.boolean().optional(),
};
// Its default is applied here, not by commander, so that a --apply-mode typed outside --child-pipeline is refused.
const applyMode = z.enum(APPLY_MODES, { error: `(APPLY_MODE in the pipeline) must be ${listOf(APPLY_MODES, "or")}` }).default("auto");
const base = z.string({ error: "<git-ref> is required" });
const head = z.string().optional();

const optionsSchema = selectMode((flags) => (flags.childPipeline !== undefined ? "child-pipeline" : flags.changedCells ? "changed-cells" : "review"), [
  modeFlags(
    "review",
    { ...settings, base, head, changedOnly: z.boolean().optional(), markdown: z.string().optional(), post: z.boolean().optional(), tokenEnv: z.string().optional() },
    goWith("--child-pipeline"),
  ).transform(
    (flags): ReviewCliOptions => ({
      modelsDir: flags.modelsDir,
      mode: {
        kind: "review",
        base: flags.base,
        ...(flags.head === undefined ? {} : { head: flags.head }),
        changedOnly: Boolean(flags.changedOnly),
        ...(flags.markdown === undefined ? {} : { markdownFile: flags.markdown }),
        post: Boolean(flags.post),
        ...(flags.tokenEnv === undefined ? {} : { tokenEnv: flags.tokenEnv }),
      },
    }),
  ),
  modeFlags("changed-cells", { ...settings, changedCells: z.literal(true), base, head }, cannotCombineWith("--changed-cells only lists the cells to plan: it cannot be combined with")).transform(
    (flags): ReviewCliOptions => ({ modelsDir: flags.modelsDir, mode: { kind: "changed-cells", base: flags.base, ...(flags.head === undefined ? {} : { head: flags.head }) } }),
  ),
  modeFlags(
    "child-pipeline",
    {
      ...settings,
      childPipeline: z.string(),
      applyMode,
      mode: z.enum(PIPELINE_MODES, { error: "--child-pipeline needs --mode plan, apply or drift" }),
      base: z.string().optional(),
      all: z.boolean().optional(),
      image: z.string().optional(),
      // Written into the child pipeline's shell lines: plain words only.
      toolkitCommand: z
        .string()
        .regex(TOOLKIT_COMMAND_PATTERN, { error: "must be plain words (letters, digits, _ . / @ = - and spaces), e.g. npx --no-install runner-fleet" })
        // A plain npx fetches the package by its name from a registry when it is not installed, and runs it with the job's credentials.
        .refine((command) => !/^npx\b/.test(command.trim()) || /(^|\s)--no-install(\s|$)/.test(command), { error: "must run the installed toolkit: npx --no-install runner-fleet (a plain npx fetches a package of that name when none is installed)" })
        .optional(),
      toolkitDir: z.string().regex(TOOLKIT_DIR_PATTERN, { error: "must be a path of letters, digits and _ . @ / -, e.g. node_modules/runner-fleet" }).optional(),
    },
    cannotCombineWith("--child-pipeline writes a pipeline: it cannot be combined with"),
  ).transform((flags, context): ReviewCliOptions => {
    const cells = flags.all ? "all" : flags.base === undefined ? undefined : { changedSince: flags.base };
    if (cells === undefined) {
      context.addIssue({ code: "custom", path: [], message: "--child-pipeline needs --base <git-ref> (or --all)" });
      return z.NEVER;
    }
    const image = flags.image === undefined ? {} : { image: flags.image };
    // Run by hand without the flags: the jobs run the toolkit as this run was (./bin/ here, npx --no-install installed).
    const toolkit: ToolkitInvocation = {
      ...runningToolkit(),
      ...(flags.toolkitCommand === undefined ? {} : { command: flags.toolkitCommand }),
      ...(flags.toolkitDir === undefined ? {} : { dir: flags.toolkitDir }),
    };
    return { modelsDir: flags.modelsDir, mode: { kind: "child-pipeline", file: flags.childPipeline, pipeline: flags.mode, applyMode: flags.applyMode, ...image, cells, toolkit } };
  }),
]);

/** review's options from its parsed command line; a UserInputError (exit 2) for a bad value or combination. */
export function parseReviewOptions(command: Command): ReviewCliOptions {
  return parseOptions(command, optionsSchema);
}
