/**
 * Trigger variables: what an upstream cell deployment passes to create a cell's model.
 *
 * They come from another project's pipeline, so they are untrusted data: every value is
 * checked here, before anything is built or written, and later only ever becomes a YAML
 * scalar through the YAML library (never text spliced into a file).
 */
import { existsSync, readFileSync } from "node:fs";
import { UserInputError } from "../process/errors";

/** Every variable the generator reads, for --help: what it sets and its default (shown as "(default: ...)"). */
export const TRIGGER_VARIABLES = {
  CELL_ID: { required: true, help: "cell id, a DNS label (cell-7)" },
  GITLAB_URL: { required: true, help: "URL of the cell's GitLab instance (with --allowed-gitlab-urls: one of those)" },
  CLOUD: { required: true, help: "google or aws" },
  REGION: { required: true, help: "cloud region (europe-west4, eu-west-1)" },
  PROJECT: { required: false, help: "Google Cloud project id (required when CLOUD=google)" },
  ZONES: { required: false, help: "comma-separated zones", default: "<region>-b,<region>-c on google, <region>a,<region>b on aws" },
  ACCOUNT_ID: { required: false, help: "AWS account id" },
  NETWORK_CIDR: { required: false, help: "range of the created network", default: "10.0.0.0/16" },
  MONITORING_CIDRS: { required: false, help: "comma-separated ranges allowed to scrape metrics" },
  SECRET_STORE: { required: false, help: "google-secret-manager, aws-ssm or local", default: "the cloud's own" },
  GITLAB_TOKEN_ENV: { required: false, help: "variable holding the GitLab admin token: only the one --admin-token-env names", default: "GITLAB_TOKEN" },
  RUNNER_VERSION: { required: false, help: "pinned gitlab-runner version", default: "19.5.0" },
  SHARD_NAME: { required: false, help: "name of the single shard", default: "small-amd64" },
  RUNNER_TAGS: { required: false, help: "comma-separated runner tags", default: "saas-linux-small-amd64" },
  RUN_UNTAGGED: { required: false, help: "true or false", default: "true" },
  MANAGER_COUNT: { required: false, help: "managers in the shard", default: "2" },
  MANAGER_MACHINE_TYPE: { required: false, help: "machine type of the managers", default: "e2-standard-2 on google, t3.medium on aws" },
  WORKER_MACHINE_TYPE: { required: false, help: "machine type of the workers", default: "n2d-standard-2 on google, m7i.large on aws" },
  MAX_INSTANCES: { required: false, help: "max workers per manager", default: "20" },
  IDLE_COUNT: { required: false, help: "idle job slots", default: "1" },
  SPOT: { required: false, help: "spot/preemptible workers, true or false (on AWS with same-size alternative_machine_types)", default: "false" },
  ALERT_EMAILS: { required: false, help: "comma-separated e-mail addresses for alerts" },
  STATE_BACKEND: {
    required: false,
    help: "local, http, gcs or s3",
    default: "http, the GitLab-managed state of this project, when CI=true; else local",
  },
  STATE_BUCKET: { required: false, help: "bucket of the gcs or s3 state backend" },
  STATE_REGION: { required: false, help: "region of the s3 state bucket", default: "REGION" },
  STATE_PROJECT: { required: false, help: "http state: GitLab project id or path", default: "$CI_PROJECT_ID" },
  STATE_API_URL: { required: false, help: "http state: GitLab API v4 URL holding the state; only $CI_API_V4_URL", default: "$CI_API_V4_URL" },
} as const;

export type TriggerVariableName = keyof typeof TRIGGER_VARIABLES;
export type TriggerVariables = Partial<Record<TriggerVariableName, string>>;

/** Longest value accepted: every real value is far shorter, and a long one is a mistake or an attack. */
const MAX_VALUE_LENGTH = 1024;
/** Control characters (newlines included) and the Unicode line and paragraph separators. */
const LINE_BREAKING_OR_CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

/** Reads the variables from the environment and, when given, a JSON object file (whose values win). */
export function readTriggerVariables(env: NodeJS.ProcessEnv, varsFile?: string): TriggerVariables {
  const variables: TriggerVariables = {};
  for (const name of Object.keys(TRIGGER_VARIABLES) as TriggerVariableName[]) {
    const value = env[name];
    if (value !== undefined && value !== "") variables[name] = value;
  }
  if (varsFile) Object.assign(variables, readVariablesFile(varsFile));
  return variables;
}

function readVariablesFile(file: string): TriggerVariables {
  if (!existsSync(file)) throw new UserInputError(`${file}: variables file not found`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new UserInputError(`${file}: expected a JSON object of trigger variables, but it does not parse: ${(error as Error).message}`);
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new UserInputError(`${file}: expected a JSON object of trigger variables such as {"CELL_ID": "cell-7"}`);
  }
  const variables: TriggerVariables = {};
  const unknown: string[] = [];
  for (const [name, value] of Object.entries(parsed)) {
    if (!Object.hasOwn(TRIGGER_VARIABLES, name)) unknown.push(name);
    else if (value !== null && value !== "") variables[name as TriggerVariableName] = Array.isArray(value) ? value.join(",") : String(value);
  }
  if (unknown.length > 0) {
    throw new UserInputError(`${file}: unknown variable(s) ${unknown.join(", ")}; known: ${Object.keys(TRIGGER_VARIABLES).join(", ")}`);
  }
  return variables;
}

/**
 * Refuses, all at once, values that cannot be meant: missing required variables, line
 * breaks or control characters (YAML injection), over-long values, an unknown CLOUD.
 * Values the model itself refuses are reported later by the model's own validation.
 */
export function checkTriggerVariables(variables: TriggerVariables): void {
  const problems: string[] = [];
  const missing = (Object.keys(TRIGGER_VARIABLES) as TriggerVariableName[]).filter(
    (name) => TRIGGER_VARIABLES[name].required && variables[name] === undefined,
  );
  if (variables.CLOUD === "google" && variables.PROJECT === undefined) missing.push("PROJECT");
  for (const name of missing) problems.push(`${name}: missing; ${TRIGGER_VARIABLES[name].help}`);

  for (const [name, value] of Object.entries(variables) as Array<[TriggerVariableName, string | undefined]>) {
    if (value === undefined) continue;
    if (LINE_BREAKING_OR_CONTROL.test(value)) {
      problems.push(`${name}: expected a single line without control characters, received ${JSON.stringify(value)}`);
    } else if (value.length > MAX_VALUE_LENGTH) {
      problems.push(`${name}: expected at most ${MAX_VALUE_LENGTH} characters, received ${value.length}`);
    }
  }
  if (variables.CLOUD !== undefined && variables.CLOUD !== "google" && variables.CLOUD !== "aws") {
    problems.push(`CLOUD: expected "google" or "aws", received ${JSON.stringify(variables.CLOUD)}`);
  }
  const backend = variables.STATE_BACKEND;
  if (backend !== undefined && !["local", "http", "gcs", "s3"].includes(backend)) {
    problems.push(`STATE_BACKEND: expected local, http, gcs or s3, received ${JSON.stringify(backend)}`);
  }
  if ((backend === "gcs" || backend === "s3") && variables.STATE_BUCKET === undefined) {
    problems.push(`STATE_BUCKET: missing; ${TRIGGER_VARIABLES.STATE_BUCKET.help} (STATE_BACKEND=${backend})`);
  }
  if (problems.length > 0) {
    throw new UserInputError(`cannot generate a model from the trigger variables:\n${problems.map((problem) => `  ${problem}`).join("\n")}`);
  }
}
