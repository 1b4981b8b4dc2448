/**
 * prepare's flags, parsed once into a PrepareMode: validate the models, or first generate a new cell's
 * model from trigger variables. Loaded inside the action (it imports zod): see app/cli/parse-options.ts.
 */
import type { Command } from "commander";
import { z } from "zod";
import { parseGitlabUrlList } from "../../lib/model/trigger-destinations";
import { cannotCombineWith, goWith, modeFlags, parseOptions, selectMode } from "../cli/parse-options";

export type PrepareMode =
  | { readonly kind: "validate" }
  /**
   * Write <models dir>/<CELL_ID>.yaml from trigger variables (the environment, or `varsFile`), then validate it.
   * When that model exists: refuse (exit 2), keep it and succeed (--if-missing), or replace it (--force).
   */
  | {
      readonly kind: "generate";
      readonly varsFile?: string;
      readonly whenExists: "refuse" | "keep" | "replace";
      /** The project's choices a trigger cannot change (--admin-token-env, --allowed-gitlab-urls): lib/model/trigger-destinations.ts. */
      readonly destinations: { readonly adminTokenEnv?: string; readonly allowedGitlabUrls?: readonly string[] };
    };

/** What prepare's command line decides; runPrepare's options add what only a program passes. */
export interface PrepareCliOptions {
  readonly models: readonly string[];
  readonly modelsDir?: string;
  readonly mode: PrepareMode;
  /** Fail (exit 1) when no terraform/tofu is available. */
  readonly requireEngine: boolean;
}

const settings = {
  model: z.array(z.string()),
  modelsDir: z.string().optional(),
  requireEngine: z.boolean().optional(),
  json: z.boolean().optional(),
};
type Settings = z.output<z.ZodObject<typeof settings>>;

function withSettings(flags: Settings, mode: PrepareMode): PrepareCliOptions {
  return { models: flags.model, modelsDir: flags.modelsDir, mode, requireEngine: Boolean(flags.requireEngine) };
}

const optionsSchema = selectMode((flags) => (flags.generate ? "generate" : "validate"), [
  modeFlags("validate", settings, goWith("--generate")).transform((flags) => withSettings(flags, { kind: "validate" })),
  modeFlags(
    "generate",
    {
      ...settings,
      generate: z.literal(true),
      varsFile: z.string().optional(),
      ifMissing: z.boolean().optional(),
      force: z.boolean().optional(),
      adminTokenEnv: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "an environment variable name, such as GITLAB_TOKEN").optional(),
      allowedGitlabUrls: z.string().optional(),
    },
    cannotCombineWith("--generate cannot be combined with"),
  ).transform((flags, context) => {
    if (flags.ifMissing && flags.force) {
      context.addIssue({ code: "custom", path: [], message: "--if-missing keeps an existing model and --force replaces it: pass one of them" });
      return z.NEVER;
    }
    const whenExists = flags.ifMissing ? "keep" : flags.force ? "replace" : "refuse";
    const destinations = {
      ...(flags.adminTokenEnv === undefined ? {} : { adminTokenEnv: flags.adminTokenEnv }),
      ...(flags.allowedGitlabUrls === undefined ? {} : { allowedGitlabUrls: parseGitlabUrlList(flags.allowedGitlabUrls) }),
    };
    return withSettings(flags, { kind: "generate", whenExists, destinations, ...(flags.varsFile === undefined ? {} : { varsFile: flags.varsFile }) });
  }),
]);

/** prepare's options from its parsed command line; a UserInputError (exit 2) for a bad value or combination. */
export function parsePrepareOptions(command: Command): PrepareCliOptions {
  return parseOptions(command, optionsSchema);
}
