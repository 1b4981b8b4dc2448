/**
 * A model for a new cell from trigger variables, so an upstream cell deployment
 * can create the model and trigger the downstream runner pipeline.
 *
 * Variables come from the environment (CI trigger variables) and optionally a
 * JSON file; the file's values win. The rendered text is validated with the same
 * loader as any hand-written model before anyone sees it, so what is written always loads.
 */
import { existsSync, readFileSync } from "node:fs";
import { UserInputError } from "../errors";
import { template } from "../render/handlebars";
import { formatPath, type ModelIssue } from "./issues";
import { parseModel, type LoadedModel } from "./load";
import { ModelValidationError } from "./issues";

/** Every variable the generator reads, with its default (undefined = required). */
export const TRIGGER_VARIABLES = {
  CELL_ID: { required: true, help: "cell id, a DNS label (cell-7)" },
  GITLAB_URL: { required: true, help: "URL of the cell's GitLab instance" },
  CLOUD: { required: true, help: "google or aws" },
  REGION: { required: true, help: "cloud region (europe-west4, eu-west-1)" },
  PROJECT: { required: false, help: "Google Cloud project id (required when CLOUD=google)" },
  ZONES: { required: false, help: "comma-separated zones; default: <region>-b,<region>-c (google), <region>a,<region>b (aws)" },
  ACCOUNT_ID: { required: false, help: "AWS account id" },
  NETWORK_CIDR: { required: false, help: "range of the created network; default 10.0.0.0/16" },
  MONITORING_CIDRS: { required: false, help: "comma-separated ranges allowed to scrape metrics" },
  SECRET_STORE: { required: false, help: "google-secret-manager, aws-ssm or local; default: the cloud's own" },
  GITLAB_TOKEN_ENV: { required: false, help: "variable holding the GitLab admin token; default GITLAB_TOKEN" },
  RUNNER_VERSION: { required: false, help: "pinned gitlab-runner version; default 18.5.0" },
  SHARD_NAME: { required: false, help: "name of the single shard; default small-amd64" },
  RUNNER_TAGS: { required: false, help: "comma-separated runner tags; default saas-linux-small-amd64" },
  RUN_UNTAGGED: { required: false, help: "true or false; default true" },
  MANAGER_COUNT: { required: false, help: "managers in the shard; default 2" },
  MANAGER_MACHINE_TYPE: { required: false, help: "default e2-standard-2 (google), t3.medium (aws)" },
  WORKER_MACHINE_TYPE: { required: false, help: "default n2d-standard-2 (google), m7i.large (aws)" },
  MAX_INSTANCES: { required: false, help: "max workers per manager; default 20" },
  IDLE_COUNT: { required: false, help: "idle job slots; default 1" },
  SPOT: { required: false, help: "spot/preemptible workers, true or false; default false" },
  ALERT_EMAILS: { required: false, help: "comma-separated e-mail addresses for alerts" },
} as const;

export type TriggerVariableName = keyof typeof TRIGGER_VARIABLES;
export type TriggerVariables = Partial<Record<TriggerVariableName, string>>;

/** Which variable fed which model path, to point errors in a generated model back at their source. */
const VARIABLE_OF_PATH: Record<string, TriggerVariableName> = {
  "cell.id": "CELL_ID",
  "gitlab.url": "GITLAB_URL",
  "gitlab.token_env": "GITLAB_TOKEN_ENV",
  "cloud.project": "PROJECT",
  "cloud.region": "REGION",
  "cloud.zones": "ZONES",
  "cloud.availability_zones": "ZONES",
  "cloud.account_id": "ACCOUNT_ID",
  "network.cidr": "NETWORK_CIDR",
  "network.monitoring_cidrs": "MONITORING_CIDRS",
  "secrets.store": "SECRET_STORE",
  "shards[0].name": "SHARD_NAME",
  "shards[0].tags": "RUNNER_TAGS",
  "shards[0].managers.runner_version": "RUNNER_VERSION",
  "shards[0].managers.count": "MANAGER_COUNT",
  "shards[0].managers.machine_type": "MANAGER_MACHINE_TYPE",
  "shards[0].workers.machine_type": "WORKER_MACHINE_TYPE",
  "shards[0].workers.max_instances": "MAX_INSTANCES",
  "shards[0].autoscaling.policies[0].idle_count": "IDLE_COUNT",
  "monitoring.notifications.emails": "ALERT_EMAILS",
};

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
    if (!(name in TRIGGER_VARIABLES)) unknown.push(name);
    else if (value !== null && value !== "") variables[name as TriggerVariableName] = Array.isArray(value) ? value.join(",") : String(value);
  }
  if (unknown.length > 0) {
    throw new UserInputError(`${file}: unknown variable(s) ${unknown.join(", ")}; known: ${Object.keys(TRIGGER_VARIABLES).join(", ")}`);
  }
  return variables;
}

export interface GeneratedModel {
  readonly cellId: string;
  readonly text: string;
  readonly loaded: LoadedModel;
}

/**
 * Renders and validates a model. Missing variables are reported together;
 * values the model rejects are reported with the variable that carried them.
 */
export function generateModel(variables: TriggerVariables, now: Date = new Date()): GeneratedModel {
  const missing = missingVariables(variables);
  if (missing.length > 0) {
    throw new UserInputError(
      `cannot generate a model, missing variable(s):\n${missing.map((name) => `  ${name}: ${TRIGGER_VARIABLES[name].help}`).join("\n")}`,
    );
  }
  const cloud = variables.CLOUD!;
  const region = variables.REGION!;
  const isGoogle = cloud === "google";
  const list = (value: string | undefined, fallback: string[]) =>
    value === undefined ? fallback : value.split(",").map((item) => item.trim()).filter(Boolean);
  const integer = (name: TriggerVariableName, fallback: number) => parseInteger(name, variables[name], fallback);
  const boolean = (name: TriggerVariableName, fallback: boolean) => parseBoolean(name, variables[name], fallback);
  const shardName = variables.SHARD_NAME ?? "small-amd64";
  const maxInstances = integer("MAX_INSTANCES", 20);

  const context = {
    generatedAt: now.toISOString(),
    cellId: variables.CELL_ID!,
    gitlabUrl: variables.GITLAB_URL!,
    tokenEnv: variables.GITLAB_TOKEN_ENV ?? "GITLAB_TOKEN",
    cloud,
    project: variables.PROJECT ?? "",
    region,
    zones: list(variables.ZONES, isGoogle ? [`${region}-b`, `${region}-c`] : [`${region}a`, `${region}b`]),
    accountId: variables.ACCOUNT_ID ?? null,
    networkCidr: variables.NETWORK_CIDR ?? "10.0.0.0/16",
    monitoringCidrs: list(variables.MONITORING_CIDRS, []),
    secretStore: variables.SECRET_STORE ?? (isGoogle ? "google-secret-manager" : "aws-ssm"),
    shardName,
    description: `${variables.CELL_ID} ${shardName}`,
    tags: list(variables.RUNNER_TAGS, ["saas-linux-small-amd64"]),
    runUntagged: boolean("RUN_UNTAGGED", true),
    managerCount: integer("MANAGER_COUNT", 2),
    managerMachineType: variables.MANAGER_MACHINE_TYPE ?? (isGoogle ? "e2-standard-2" : "t3.medium"),
    runnerVersion: variables.RUNNER_VERSION ?? "18.5.0",
    concurrent: maxInstances,
    workerMachineType: variables.WORKER_MACHINE_TYPE ?? (isGoogle ? "n2d-standard-2" : "m7i.large"),
    maxInstances,
    idleCount: integer("IDLE_COUNT", 1),
    spot: boolean("SPOT", false),
    emails: list(variables.ALERT_EMAILS, []),
  };
  const text = template<typeof context>("model/cell.yaml.hbs")(context);
  const file = `${context.cellId}.yaml (generated)`;
  try {
    return { cellId: context.cellId, text, loaded: parseModel(text, file) };
  } catch (error) {
    if (error instanceof ModelValidationError) throw generatedModelError(error.issues);
    throw error;
  }
}

function missingVariables(variables: TriggerVariables): TriggerVariableName[] {
  const missing = (Object.keys(TRIGGER_VARIABLES) as TriggerVariableName[]).filter(
    (name) => TRIGGER_VARIABLES[name].required && variables[name] === undefined,
  );
  if (variables.CLOUD === "google" && variables.PROJECT === undefined) missing.push("PROJECT");
  if (variables.CLOUD !== undefined && variables.CLOUD !== "google" && variables.CLOUD !== "aws") {
    throw new UserInputError(`CLOUD: expected "google" or "aws", received ${JSON.stringify(variables.CLOUD)}`);
  }
  return missing;
}

function generatedModelError(issues: readonly ModelIssue[]): UserInputError {
  const lines = issues.map((issue) => {
    const path = formatPath(issue.path);
    const variable = Object.entries(VARIABLE_OF_PATH).find(([prefix]) => path === prefix || path.startsWith(`${prefix}[`))?.[1];
    const source = variable ? `variable ${variable}` : path;
    return `  ${source}: expected ${issue.expected}, received ${issue.received ?? "nothing"}`;
  });
  return new UserInputError(`the trigger variables do not make a valid model:\n${lines.join("\n")}`);
}

function parseInteger(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^[0-9]+$/.test(value)) throw new UserInputError(`${name}: expected a whole number, received ${JSON.stringify(value)}`);
  return Number(value);
}

function parseBoolean(name: string, value: string | undefined, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (value === "true" || value === "false") return value === "true";
  throw new UserInputError(`${name}: expected true or false, received ${JSON.stringify(value)}`);
}
