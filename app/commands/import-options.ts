/**
 * import's flags, parsed once (zod, loaded inside the action: see app/cli/parse-options.ts).
 * A bad value or a missing flag is a UserInputError (exit 2) naming the flag, before any file is read.
 */
import type { Command } from "commander";
import { z } from "zod";
import { parseOptions } from "../cli/parse-options";
import type { ImportFlags } from "../import/imported-model";

/** The flags that shape the model (ImportFlags), and what to read, where to write and whether to adopt. */
export interface ImportCliOptions extends ImportFlags {
  readonly configs: readonly string[];
  readonly adopt: boolean;
  readonly out?: string;
  readonly force: boolean;
  /** Write the model even when prepare refuses it, with the refusals in its header. */
  readonly writeRefused: boolean;
}

const cellId = z
  .string({ error: (issue) => (issue.input === undefined ? "is required: the id of the cell the model is for" : undefined) })
  .regex(/^[a-z]([a-z0-9-]{0,61}[a-z0-9])?$/, "must be a DNS label: lowercase letters, digits and '-', starting with a letter")
  .refine((text) => !text.includes("--"), { message: 'must not hold "--" (secret names join the cell id and the shard name with "--")' });

const schema = z
  .strictObject({
    config: z
      .array(z.string().min(1), { error: (issue) => (issue.input === undefined ? "is required: a gitlab-runner config.toml (repeatable)" : undefined) })
      .min(1, { error: "is required: a gitlab-runner config.toml (repeatable)" }),
    cell: cellId,
    cloud: z.enum(["google", "aws"], { error: (issue) => (issue.input === undefined ? "is required: google or aws" : "must be google or aws") }),
    region: z.string().min(1).optional(),
    project: z.string().min(1).optional(),
    accountId: z.string().regex(/^[0-9]{12}$/, "must be a 12-digit AWS account id").optional(),
    secretsStore: z.enum(["local", "google-secret-manager", "aws-ssm"]).optional(),
    adopt: z.boolean().optional(),
    out: z.string().min(1).optional(),
    force: z.boolean().optional(),
    writeRefused: z.boolean().optional(),
    json: z.boolean().optional(),
  })
  // The tokens go into the store the model names: a model prepare refuses names none for certain.
  .refine((flags) => !(flags.adopt && flags.writeRefused), { error: "--write-refused cannot be used with --adopt: adopted tokens are stored only for a model prepare accepts", path: ["writeRefused"] })
  .transform(
    (flags): ImportCliOptions => ({
      configs: flags.config,
      cell: flags.cell,
      cloud: flags.cloud,
      ...(flags.region ? { region: flags.region } : {}),
      ...(flags.project ? { project: flags.project } : {}),
      ...(flags.accountId ? { accountId: flags.accountId } : {}),
      ...(flags.secretsStore ? { secretsStore: flags.secretsStore } : {}),
      adopt: Boolean(flags.adopt),
      ...(flags.out ? { out: flags.out } : {}),
      force: Boolean(flags.force),
      writeRefused: Boolean(flags.writeRefused),
    }),
  );

/** import's options from its parsed command line; a UserInputError (exit 2) for a bad value. */
export function parseImportOptions(command: Command): ImportCliOptions {
  return parseOptions(command, schema);
}
