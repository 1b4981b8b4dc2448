/**
 * provision's flags, parsed once into a ProvisionMode: a drift check, a dry run, a plan, a destroy or an
 * apply, each with what it needs. A switch the mode cannot use is refused before any model is read.
 * Loaded inside the action (it imports zod): see app/cli/parse-options.ts.
 */
import type { Command } from "commander";
import { z } from "zod";
import { cannotCombineWith, listOf, modeFlags, parseOptions, selectMode } from "../cli/parse-options";
import { isLockTimeout } from "../../lib/terraform/engine";
import { ENGINE_NAMES, type EngineName } from "../../lib/terraform/toolchain-check";

/** Whether a person confirms each cell's change, or the run applies without asking (pipelines). */
export type Approval = "ask" | "auto";

/** What one provision run does; each mode carries only what it needs. */
export type ProvisionMode =
  /** Validate, render and synthesize only: no GitLab, no cloud, no engine. */
  | { readonly kind: "dry-run" }
  /** Plan every cell and stop: nothing is written to GitLab. `change` is what the plan would do. */
  | { readonly kind: "plan"; readonly change: "apply" | "destroy" }
  /** Plan every cell and report those whose infrastructure differs from their model; nothing is applied or onboarded. */
  | { readonly kind: "drift" }
  | {
      readonly kind: "apply";
      readonly approval: Approval;
      /** Create or reconcile the cell's runners before the apply. */
      readonly onboard: boolean;
      /** Apply this saved (reviewed) plan when its inputs digest matches this checkout; when it does not, refuse or plan again. */
      readonly reviewedPlan?: { readonly file: string; readonly whenMissing: "apply" | "refuse" };
    }
  /** Destroy the cell's resources, then remove its runners (unless `removeRunners` is false). */
  | { readonly kind: "destroy"; readonly approval: Approval; readonly removeRunners: boolean };

/** What provision's command line decides; runProvision's options add what only a program passes. */
export interface ProvisionCliOptions {
  readonly models: readonly string[];
  readonly modelsDir?: string;
  readonly mode: ProvisionMode;
  readonly engine?: EngineName;
  /** Synthesis output directory, relative to the current directory. @default cdktf.out in the workspace (lib/files/workspace.ts) */
  readonly out?: string;
  readonly markdownFile?: string;
  /** Write GitLab's Terraform report ({"create","update","delete"} counts, summed over the cells) here. */
  readonly terraformReportFile?: string;
  /** The engine's -lock-timeout for plan and apply. @default $RUNNER_LOCK_TIMEOUT, else DEFAULT_LOCK_TIMEOUT */
  readonly lockTimeout?: string;
  /** Under CI=true, accept models whose state is local (lost with the job). */
  readonly allowLocalState?: boolean;
  /** Create or update each cell's plan summary as a note on the merge request of $CI_MERGE_REQUEST_IID. */
  readonly post?: boolean;
  /** Variable holding the token for --post. @default - GITLAB_REVIEW_TOKEN, else GITLAB_TOKEN */
  readonly tokenEnv?: string;
}

/** Flags every mode takes: where things are and go, not what the run does. */
const settings = {
  model: z.array(z.string()),
  modelsDir: z.string().optional(),
  engine: z.enum(ENGINE_NAMES, { error: `must be ${listOf(ENGINE_NAMES, "or")}` }).optional(),
  out: z.string().optional(),
  lockTimeout: z.string().refine(isLockTimeout, { error: "must be a duration such as 5m, 90s or 1h30m" }).optional(),
  allowLocalState: z.boolean().optional(),
  markdown: z.string().optional(),
  terraformReport: z.string().optional(),
  post: z.boolean().optional(),
  tokenEnv: z.string().optional(),
  json: z.boolean().optional(),
  // Moot where nothing is onboarded, and harmless: merge request plan jobs pass it with --plan.
  skipOnboard: z.boolean().optional(),
};
type Settings = z.output<z.ZodObject<typeof settings>>;

function withSettings(flags: Settings, mode: ProvisionMode): ProvisionCliOptions {
  return {
    models: flags.model,
    modelsDir: flags.modelsDir,
    mode,
    engine: flags.engine,
    out: flags.out,
    markdownFile: flags.markdown,
    terraformReportFile: flags.terraformReport,
    lockTimeout: flags.lockTimeout,
    allowLocalState: Boolean(flags.allowLocalState),
    post: Boolean(flags.post),
    tokenEnv: flags.tokenEnv,
  };
}

/** When several modes are asked for, the first one here is chosen, and refuses the others. */
function selected(flags: Readonly<Record<string, unknown>>): ProvisionMode["kind"] {
  if (flags.drift) return "drift";
  if (flags.dryRun) return "dry-run";
  if (flags.plan) return "plan";
  if (flags.destroy) return "destroy";
  return "apply";
}

const optionsSchema = selectMode(selected, [
  modeFlags("drift", { ...settings, drift: z.literal(true) }, cannotCombineWith("--drift only plans: it cannot be combined with")).transform((flags) =>
    withSettings(flags, { kind: "drift" }),
  ),
  modeFlags("dry-run", { ...settings, dryRun: z.literal(true) }, cannotCombineWith("--dry-run only synthesizes: it cannot be combined with")).transform((flags) =>
    withSettings(flags, { kind: "dry-run" }),
  ),
  modeFlags("plan", { ...settings, plan: z.literal(true), destroy: z.boolean().optional() }, cannotCombineWith("--plan stops after the plan: it cannot be combined with")).transform(
    (flags) => withSettings(flags, { kind: "plan", change: flags.destroy ? "destroy" : "apply" }),
  ),
  modeFlags("destroy", { ...settings, destroy: z.literal(true), autoApprove: z.boolean().optional() }, cannotCombineWith("--destroy cannot be combined with")).transform((flags) =>
    withSettings(flags, { kind: "destroy", approval: flags.autoApprove ? "auto" : "ask", removeRunners: !flags.skipOnboard }),
  ),
  modeFlags(
    "apply",
    { ...settings, autoApprove: z.boolean().optional(), reviewedPlan: z.string().optional(), allowUnreviewed: z.boolean().optional() },
    cannotCombineWith("an apply cannot be combined with"),
  ).transform((flags, context) => {
    if (flags.allowUnreviewed && flags.reviewedPlan === undefined) {
      context.addIssue({ code: "custom", path: ["allowUnreviewed"], message: "--allow-unreviewed goes with --reviewed-plan" });
      return z.NEVER;
    }
    const reviewedPlan = flags.reviewedPlan === undefined ? {} : { reviewedPlan: { file: flags.reviewedPlan, whenMissing: flags.allowUnreviewed ? "apply" : "refuse" } as const };
    return withSettings(flags, { kind: "apply", approval: flags.autoApprove ? "auto" : "ask", onboard: !flags.skipOnboard, ...reviewedPlan });
  }),
]);

/** provision's options from its parsed command line; a UserInputError (exit 2) for a bad value or combination. */
export function parseProvisionOptions(command: Command): ProvisionCliOptions {
  return parseOptions(command, optionsSchema);
}
