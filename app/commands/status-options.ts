/**
 * status's flags, parsed once: which models, whether the stored tokens are checked with GitLab, and
 * whether remote states are read.
 * status has one mode, so its schema is one strict object. Loaded inside the action (it imports zod):
 * see app/cli/parse-options.ts.
 */
import type { Command } from "commander";
import { z } from "zod";
import { isDuration, isRequestRate } from "../cli/gitlab-settings";
import { listOf, parseOptions } from "../cli/parse-options";
import { ENGINE_NAMES, type EngineName } from "../../lib/terraform/toolchain-check";

/** What status's command line decides; runStatus's options add what only a program passes. */
export interface StatusCliOptions {
  /** Paths or names in the models directory. @default every model in the directory */
  readonly models: readonly string[];
  readonly modelsDir?: string;
  /** Check each stored token with GitLab (POST /runners/verify); --no-verify turns it off. */
  readonly verifyTokens: boolean;
  /** How long one GitLab call may keep retrying: a Go duration. @default $ONBOARD_RETRY_TIMEOUT or 2m */
  readonly retryTimeout?: string;
  /** Requests a minute to each GitLab. @default $GITLAB_REQUESTS_PER_MINUTE or 100 */
  readonly rateLimit?: string;
  /** Cells checked at once. @default 4 */
  readonly cellConcurrency?: number;
  /** Read the applied version from remote states too, with the engine (--read-state). */
  readonly readState: boolean;
  /** The engine --read-state runs. @default the first supported one on PATH */
  readonly engine?: EngineName;
}

const optionsSchema = z
  .strictObject({
    model: z.array(z.string()),
    modelsDir: z.string().optional(),
    verify: z.boolean(),
    retryTimeout: z.string().refine(isDuration, { error: 'must be a Go duration such as "2m" or "90s"' }).optional(),
    rateLimit: z.string().refine(isRequestRate, { error: "must be a number of requests a minute (0: no limit)" }).optional(),
    cellConcurrency: z
      .string()
      .transform(Number)
      .refine((value) => Number.isInteger(value) && value >= 1 && value <= 64, { error: "must be a whole number from 1 to 64" })
      .optional(),
    readState: z.boolean().optional(),
    engine: z.enum(ENGINE_NAMES, { error: `must be ${listOf(ENGINE_NAMES, "or")}` }).optional(),
    json: z.boolean().optional(),
  })
  .transform(
    (flags): StatusCliOptions => ({
      models: flags.model,
      modelsDir: flags.modelsDir,
      verifyTokens: flags.verify,
      ...(flags.retryTimeout === undefined ? {} : { retryTimeout: flags.retryTimeout }),
      ...(flags.rateLimit === undefined ? {} : { rateLimit: flags.rateLimit }),
      ...(flags.cellConcurrency === undefined ? {} : { cellConcurrency: flags.cellConcurrency }),
      readState: flags.readState === true,
      ...(flags.engine === undefined ? {} : { engine: flags.engine }),
    }),
  );

/** status's options from its parsed command line; a UserInputError (exit 2) for a bad value. */
export function parseStatusOptions(command: Command): StatusCliOptions {
  return parseOptions(command, optionsSchema);
}
