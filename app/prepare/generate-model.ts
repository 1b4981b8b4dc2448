/**
 * A model for a new cell from trigger variables, so an upstream cell deployment
 * can create the model and trigger the downstream runner pipeline.
 *
 * The model is built as an object and written by the YAML library, with its
 * explanatory comments attached to nodes: a variable's value only ever becomes a
 * scalar, never text spliced into the file. The text is then validated with the same
 * loader as any hand-written model, so what is written always loads.
 */
import { Document, isMap, isPair, isScalar, isSeq, type Pair, type YAMLMap } from "yaml";
import { UserInputError } from "../../lib/process/errors";
import { formatPath, ModelValidationError, type ModelIssue } from "../../lib/model/issues";
import { parseModel, type LoadedModel } from "../../lib/model/load";
import type { RunnerModelInput } from "../../lib/model/schema";
import { DEFAULT_ADMIN_TOKEN_ENV, triggerDestinationProblems, type TriggerDestinationPolicy } from "../../lib/model/trigger-destinations";
import { checkTriggerVariables, type TriggerVariableName, type TriggerVariables } from "../../lib/model/trigger-variables";
import { runningToolkit, toolkitCommand } from "../../lib/ci/toolkit-invocation";

export { readTriggerVariables, TRIGGER_VARIABLES, type TriggerVariableName, type TriggerVariables } from "../../lib/model/trigger-variables";

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
  "state.bucket": "STATE_BUCKET",
  "state.region": "STATE_REGION",
  "state.project_id": "STATE_PROJECT",
  "state.api_url": "STATE_API_URL",
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

export interface GeneratedModel {
  readonly cellId: string;
  readonly text: string;
  readonly loaded: LoadedModel;
}

export interface GenerateOptions {
  readonly now?: Date;
  /** The CI environment: under CI=true the model keeps its state in GitLab by default. */
  readonly env?: NodeJS.ProcessEnv;
  /** What the project decided about where secrets go (lib/model/trigger-destinations.ts); $CI_API_V4_URL comes from `env`. */
  readonly destinations?: Omit<TriggerDestinationPolicy, "projectApiUrl">;
}

/**
 * Builds and validates a model. Every variable is checked first; values the model
 * rejects are reported with the variable that carried them. Nothing is written here.
 */
export function generateModel(variables: TriggerVariables, options: GenerateOptions = {}): GeneratedModel {
  checkTriggerVariables(variables);
  const env = options.env ?? {};
  const problems = triggerDestinationProblems(variables, { ...options.destinations, projectApiUrl: env.CI_API_V4_URL });
  if (problems.length > 0) {
    throw new UserInputError(`the trigger variables point a secret where this project did not choose; nothing was written:\n${problems.map((problem) => `  ${problem}`).join("\n")}`);
  }
  const model = modelFromVariables({ GITLAB_TOKEN_ENV: options.destinations?.adminTokenEnv ?? DEFAULT_ADMIN_TOKEN_ENV, ...variables }, env);
  const text = modelDocument(model, options.now ?? new Date()).toString({ lineWidth: 0, flowCollectionPadding: false });
  const file = `${variables.CELL_ID}.yaml (generated)`;
  try {
    return { cellId: model.cell.id, text, loaded: parseModel(text, file) };
  } catch (error) {
    if (error instanceof ModelValidationError) throw generatedModelError(error.issues);
    throw error;
  }
}

function modelFromVariables(variables: TriggerVariables, env: NodeJS.ProcessEnv): RunnerModelInput {
  const cloud = variables.CLOUD as "google" | "aws";
  const region = variables.REGION!;
  const isGoogle = cloud === "google";
  const list = (value: string | undefined, fallback: string[]) =>
    value === undefined ? fallback : value.split(",").map((item) => item.trim()).filter(Boolean);
  const integer = (name: TriggerVariableName, fallback: number) => parseInteger(name, variables[name], fallback);
  const boolean = (name: TriggerVariableName, fallback: boolean) => parseBoolean(name, variables[name], fallback);
  const cellId = variables.CELL_ID!;
  const shardName = variables.SHARD_NAME ?? "small-amd64";
  const maxInstances = integer("MAX_INSTANCES", 20);
  const zones = list(variables.ZONES, isGoogle ? [`${region}-b`, `${region}-c`] : [`${region}a`, `${region}b`]);
  const state = stateFromVariables(variables, env);

  return {
    cell: { id: cellId, labels: { "managed-by": "runner-fleet", cell: cellId } },
    gitlab: { url: variables.GITLAB_URL!, token_env: variables.GITLAB_TOKEN_ENV ?? DEFAULT_ADMIN_TOKEN_ENV },
    cloud: isGoogle
      ? { provider: "google", project: variables.PROJECT!, region, zones }
      : { provider: "aws", region, availability_zones: zones, ...(variables.ACCOUNT_ID ? { account_id: variables.ACCOUNT_ID } : {}) },
    // A NAT gateway per AWS zone, so one zone's outage leaves the others' egress up (the model warns about one NAT).
    network: { cidr: variables.NETWORK_CIDR ?? "10.0.0.0/16", nat: !isGoogle && zones.length > 1 ? "per-zone" : true, monitoring_cidrs: list(variables.MONITORING_CIDRS, []) },
    ...(state ? { state } : {}),
    secrets: { store: (variables.SECRET_STORE ?? (isGoogle ? "google-secret-manager" : "aws-ssm")) as "local" },
    shards: [
      {
        name: shardName,
        description: `${cellId} ${shardName}`,
        tags: list(variables.RUNNER_TAGS, ["saas-linux-small-amd64"]),
        run_untagged: boolean("RUN_UNTAGGED", true),
        maximum_timeout: "1h",
        managers: {
          count: integer("MANAGER_COUNT", 2),
          machine_type: variables.MANAGER_MACHINE_TYPE ?? (isGoogle ? "e2-standard-2" : "t3.medium"),
          runner_version: variables.RUNNER_VERSION ?? "19.5.0",
          concurrent: maxInstances,
        },
        workers: {
          machine_type: variables.WORKER_MACHINE_TYPE ?? (isGoogle ? "n2d-standard-2" : "m7i.large"),
          capacity_per_instance: 1,
          max_use_count: 1,
          max_instances: maxInstances,
          spot: boolean("SPOT", false),
        },
        autoscaling: { policies: [{ periods: ["* * * * *"], timezone: "UTC", idle_count: integer("IDLE_COUNT", 1), idle_time: "20m" }] },
      },
    ],
    monitoring: { enabled: true, notifications: { emails: list(variables.ALERT_EMAILS, []) } },
  };
}

/**
 * Where the generated cell keeps its Terraform state. A model generated in a CI job
 * must not default to local state, which dies with the job: under CI=true it uses
 * GitLab-managed Terraform state of the models project, read with the job token.
 */
function stateFromVariables(variables: TriggerVariables, env: NodeJS.ProcessEnv): RunnerModelInput["state"] | undefined {
  const inCi = env.CI === "true";
  const backend = variables.STATE_BACKEND ?? (inCi ? "http" : undefined);
  switch (backend) {
    case undefined:
    case "local":
      return backend === "local" ? { backend: "local" } : undefined;
    case "gcs":
      return { backend: "gcs", bucket: variables.STATE_BUCKET! };
    case "s3":
      return { backend: "s3", bucket: variables.STATE_BUCKET!, region: variables.STATE_REGION ?? variables.REGION! };
    case "http": {
      const projectId = variables.STATE_PROJECT ?? env.CI_PROJECT_ID;
      const apiUrl = variables.STATE_API_URL ?? env.CI_API_V4_URL;
      const missing = [
        ...(projectId ? [] : ["STATE_PROJECT (or CI_PROJECT_ID)"]),
        ...(apiUrl ? [] : ["STATE_API_URL (or CI_API_V4_URL)"]),
      ];
      if (missing.length > 0) {
        throw new UserInputError(`cannot generate a model with GitLab-managed state (STATE_BACKEND=http${variables.STATE_BACKEND ? "" : ", the default under CI=true"}): ${missing.join(" and ")} not set`);
      }
      return {
        backend: "http",
        api_url: apiUrl!,
        project_id: /^[0-9]+$/.test(projectId!) ? Number(projectId) : projectId!,
        // GitLab accepts the job token for the state API as user gitlab-ci-token.
        username: "gitlab-ci-token",
        password_env: "CI_JOB_TOKEN",
      };
    }
    default:
      throw new UserInputError(`STATE_BACKEND: expected local, http, gcs or s3, received ${JSON.stringify(backend)}`);
  }
}

/** Comments written above top-level keys, for the people who edit the model next. */
const KEY_COMMENTS: Record<string, string> = {
  gitlab: " The GitLab instance the runners register with; token_env names the variable holding its admin token.",
  network: " A network created for the fleet; managers and workers reach GitLab through NAT.",
  state: " Terraform state of this cell's stack; it must outlive the CI job that generated the model.",
  secrets: " Where onboard stores the runner tokens and the managers read them at boot.",
  shards: " One GitLab runner per shard, with its own managers and autoscaled workers.",
};

function modelDocument(model: RunnerModelInput, now: Date): Document {
  const doc = new Document(model);
  doc.commentBefore = [
    " yaml-language-server: $schema=./schema.json",
    "",
    ` Generated by \`${toolkitCommand(runningToolkit(), "prepare")} --generate\` for cell ${model.cell.id} on ${now.toISOString()}.`,
    " Edit freely: later runs never overwrite an existing model.",
  ].join("\n");
  const root = doc.contents as YAMLMap;
  for (const item of root.items as Pair[]) {
    if (!isScalar(item.key)) continue;
    const comment = KEY_COMMENTS[String(item.key.value)];
    if (comment) item.key.commentBefore = comment;
    if (item.key.value !== "cell") item.key.spaceBefore = true;
  }
  // Short lists read best inline, as a person would write them.
  const inlineLists = [
    ["cloud", "zones"],
    ["cloud", "availability_zones"],
    ["network", "monitoring_cidrs"],
    ["shards", 0, "tags"],
    ["shards", 0, "autoscaling", "policies", 0, "periods"],
    ["monitoring", "notifications", "emails"],
  ];
  for (const path of inlineLists) {
    const node = doc.getIn(path, true);
    if (isSeq(node)) node.flow = true;
  }
  if (!isMap(root) || !root.items.every(isPair)) throw new Error("a generated model is a mapping of pairs");
  return doc;
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
  if (!/^[0-9]{1,9}$/.test(value)) throw new UserInputError(`${name}: expected a whole number, received ${JSON.stringify(value)}`);
  return Number(value);
}

function parseBoolean(name: string, value: string | undefined, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (value === "true" || value === "false") return value === "true";
  throw new UserInputError(`${name}: expected true or false, received ${JSON.stringify(value)}`);
}
