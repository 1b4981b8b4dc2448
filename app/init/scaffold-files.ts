/**
 * What `runner-fleet init` writes into a models repository: one commented example cell, the models'
 * JSON Schema, a pipeline that includes the toolkit's CI/CD component, a README for the team and a
 * .gitignore. Each file's text only; writing them (and refusing to overwrite) is app/commands/init.ts's job.
 */
import { template } from "../../lib/templates/template-engine";
import { runnerModelJsonSchemaText } from "../../lib/model/json-schema";
import { parseModel } from "../../lib/model/load";
import { ModelValidationError, formatIssue } from "../../lib/model/issues";
import { UserInputError } from "../../lib/process/errors";
import { toolkitPeerVersion } from "../../lib/files/toolkit-version";
import { STORE_SDKS } from "../../lib/secrets/store-sdk";
import type { RunnerModel } from "../../lib/model/schema";
import { mergeNpmrc, npmrcLines } from "./npmrc";

export const CLOUDS = ["google", "aws"] as const;
export type Cloud = (typeof CLOUDS)[number];

/** Where the component lives until the team says (`--component-project`): a placeholder GitLab refuses by name. */
export const PLACEHOLDER_COMPONENT_PROJECT = "YOUR-GROUP/runner-fleet";

export interface ScaffoldSettings {
  readonly cloud: Cloud;
  /** The example cell's id, and its file's name. */
  readonly cell: string;
  /** The toolkit version the pipeline includes and package.json pins. */
  readonly version: string;
  /** Full path of the GitLab project hosting the component, e.g. `platform/runner-fleet`. */
  readonly componentProject: string;
  /** The npm registry runner-fleet is installed from, as npmRegistryUrl gives it: a `.npmrc` for it. @default - none written */
  readonly npmRegistry?: string;
}

export interface ScaffoldFile {
  /** Relative to the repository's root, with forward slashes. */
  readonly path: string;
  readonly content: string;
  /** A file the team keeps lines of its own in: merged into when it exists (never in the way), not replaced. */
  readonly merge?: (existing: string) => string;
}

export interface Scaffold {
  /** Paths written besides package.json: the files `init` refuses to overwrite without --force. */
  readonly files: ScaffoldFile[];
  /** Packages package.json pins beside runner-fleet, at the versions it was tested with: the SDK of the example's secret store. */
  readonly packages: Readonly<Record<string, string>>;
}

export function scaffoldFiles(settings: ScaffoldSettings): Scaffold {
  const context = { ...settings };
  const modelPath = `models/${settings.cell}.yaml`;
  const model = template<typeof context>(`init/model-${settings.cloud}.yaml.hbs`)(context);
  const { secrets } = checkExampleModel(model, modelPath, settings.cell);
  const sdk = STORE_SDKS[secrets.store];
  return { files: filesAround(model, modelPath, context), packages: sdk ? { [sdk]: toolkitPeerVersion(sdk) } : {} };
}

/** The example model at `modelPath`, and the files around it. */
function filesAround(model: string, modelPath: string, context: ScaffoldSettings): ScaffoldFile[] {
  return [
    { path: modelPath, content: model },
    { path: "models/schema.json", content: runnerModelJsonSchemaText() },
    { path: ".gitlab-ci.yml", content: template<typeof context>("init/gitlab-ci.yml.hbs")(context) },
    { path: "README.md", content: template<typeof context>("init/README.md.hbs")(context) },
    { path: ".gitignore", content: GITIGNORE, merge: (existing) => withLines(existing, GITIGNORE) },
    ...(context.npmRegistry ? [npmrcFile(context.npmRegistry)] : []),
  ];
}

/** A `.npmrc` of the team's is merged into: its registry and that registry's token become these, its other lines stay. */
function npmrcFile(registry: string): ScaffoldFile {
  return { path: ".npmrc", content: `${npmrcLines(registry).join("\n")}\n`, merge: (existing) => mergeNpmrc(existing, registry) };
}

/** What the commands write beside models/, and what npm installs: none of it belongs in git. */
const GITIGNORE = ["node_modules/", "cdktf.out/", ".state/", ".terraform/", "*.tfplan", "*.tfstate", "*.tfstate.backup", ""].join("\n");

/** `existing` with each line of `wanted` it lacks appended, in order. */
function withLines(existing: string, wanted: string): string {
  const have = new Set(existing.split("\n").map((line) => line.trim()));
  const missing = wanted.split("\n").filter((line) => line !== "" && !have.has(line));
  if (missing.length === 0) return existing;
  return `${existing}${existing === "" || existing.endsWith("\n") ? "" : "\n"}# runner-fleet\n${missing.join("\n")}\n`;
}

/** The example must load as the commands will load it; a --cell the model refuses is the user's input, named as such. */
function checkExampleModel(text: string, file: string, cell: string): RunnerModel {
  try {
    return parseModel(text, file, cell).model;
  } catch (error) {
    if (!(error instanceof ModelValidationError)) throw error;
    const problems = error.issues.filter((issue) => issue.severity === "error").map(formatIssue);
    throw new UserInputError(`--cell ${JSON.stringify(cell)} does not make a valid model:\n${problems.join("\n")}`);
  }
}
