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
import { sameSizeTypes } from "../../lib/model/spot-checks";
import { DEFAULT_ADMIN_TOKEN_ENV, triggerDestinationProblems, type TriggerDestinationPolicy } from "../../lib/model/trigger-destinations";
import { checkTriggerVariables, TRIGGER_VARIABLES, type TriggerVariableName, type TriggerVariables } from "../../lib/model/trigger-variables";
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
 * rejects are reported with the variable that carried them, all at once. Nothing is written here.
 */
export function generateModel(variables: TriggerVariables, options: GenerateOptions = {}): GeneratedModel {
  checkTriggerVariables(variables);
  const env = options.env ?? {};
  const destinationProblems = triggerDestinationProblems(variables, { ...options.destinations, projectApiUrl: env.CI_API_V4_URL });
  if (destinationProblems.length > 0) {
    throw new UserInputError(`the trigger variables point a secret where this project did not choose; nothing was written:\n${destinationProblems.map((problem) => `  ${problem}`).join("\n")}`);
  }
  const file = `${variables.CELL_ID}.yaml (generated)`;
  const problems = new Map<string, string>();
  let current: TriggerVariables = { GITLAB_TOKEN_ENV: options.destinations?.adminTokenEnv ?? DEFAULT_ADMIN_TOKEN_ENV, ...variables };
  // A value the schema refuses hides the checks across fields (zones of the region, derived names) that run
  // only on a model whose shape is valid: each round stands in for the variables already refused (their
  // default, or a placeholder that passes) so that the next round reaches the checks of the others.
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const refusedBefore = new Set(problems.keys());
    const valueProblems: VariableProblem[] = [];
    const model = modelFromVariables(current, env, valueProblems);
    const text = modelDocument(model, options.now ?? new Date()).toString({ lineWidth: 0, flowCollectionPadding: false });
    let issues: readonly ModelIssue[] = [];
    let loaded: LoadedModel | undefined;
    try {
      loaded = parseModel(text, file);
    } catch (error) {
      if (!(error instanceof ModelValidationError)) throw error;
      issues = error.issues;
    }
    const found = [...valueProblems, ...issues.map(variableProblem)];
    for (const problem of found) {
      // Later rounds report only what the variables as given do wrong, not what a stand-in set off.
      const standIn = problem.variable !== undefined && refusedBefore.has(problem.variable);
      if (round > 0 && (problem.variable === undefined || standIn)) continue;
      const key = problem.variable ?? problem.line;
      if (!problems.has(key)) problems.set(key, problem.line);
    }
    if (loaded && problems.size === 0) return { cellId: model.cell.id, text, loaded };
    const next = withStandIns(current, found);
    if (next === undefined) break;
    current = next;
  }
  // In the order of --help's list, so the message reads as the variables are documented.
  const order = Object.keys(TRIGGER_VARIABLES);
  const rank = (key: string) => (order.includes(key) ? order.indexOf(key) : order.length);
  return throwProblems([...problems.entries()].sort(([a], [b]) => rank(a) - rank(b)).map(([, line]) => line));
}

/** Rounds of stand-ins: the schema, then the checks across fields, then what those hid (derived names). */
const MAX_ROUNDS = 3;

interface VariableProblem {
  readonly variable?: TriggerVariableName;
  readonly line: string;
}

/**
 * Values that pass in place of required variables the model refused. REGION has none: the zones and the
 * state's region are judged against it, so a stand-in would report them wrongly.
 */
const PLACEHOLDERS: Partial<Record<TriggerVariableName, string>> = {
  CELL_ID: "cell-0",
  GITLAB_URL: "https://gitlab.example.com",
  PROJECT: "runner-fleet-0",
};

/**
 * The variables with the refused ones replaced by a placeholder or their default; undefined when none can be.
 * CLOUD, REGION and STATE_BACKEND shape the rest of the model and keep their value.
 */
function withStandIns(variables: TriggerVariables, found: readonly VariableProblem[]): TriggerVariables | undefined {
  const next: TriggerVariables = { ...variables };
  let changed = false;
  for (const { variable } of found) {
    if (variable === undefined || KEPT.has(variable) || next[variable] === undefined) continue;
    const placeholder = PLACEHOLDERS[variable];
    if (placeholder === next[variable] || (placeholder === undefined && TRIGGER_VARIABLES[variable].required)) continue;
    if (placeholder === undefined) delete next[variable];
    else next[variable] = placeholder;
    changed = true;
  }
  return changed ? next : undefined;
}

const KEPT: ReadonlySet<TriggerVariableName> = new Set(["CLOUD", "REGION", "STATE_BACKEND"]);

function variableProblem(issue: ModelIssue): VariableProblem {
  const path = formatPath(issue.path);
  const variable = Object.entries(VARIABLE_OF_PATH).find(([prefix]) => path === prefix || path.startsWith(`${prefix}[`))?.[1];
  const hint = issue.hint ? ` (${issue.hint})` : "";
  return { variable, line: `${variable ? `variable ${variable}` : path}: expected ${issue.expected}, received ${issue.received ?? "nothing"}${hint}` };
}

function throwProblems(lines: readonly string[]): never {
  throw new UserInputError(`the trigger variables do not make a valid model:\n${lines.map((line) => `  ${line}`).join("\n")}`);
}

function modelFromVariables(variables: TriggerVariables, env: NodeJS.ProcessEnv, problems: VariableProblem[]): RunnerModelInput {
  const cloud = variables.CLOUD as "google" | "aws";
  const region = variables.REGION!;
  const isGoogle = cloud === "google";
  const list = (value: string | undefined, fallback: string[]) =>
    value === undefined ? fallback : value.split(",").map((item) => item.trim()).filter(Boolean);
  const integer = (name: TriggerVariableName, fallback: number) => parseInteger(name, variables[name], fallback, problems);
  const boolean = (name: TriggerVariableName, fallback: boolean) => parseBoolean(name, variables[name], fallback, problems);
  const cellId = variables.CELL_ID!;
  const shardName = variables.SHARD_NAME ?? "small-amd64";
  const maxInstances = integer("MAX_INSTANCES", 20);
  const zones = list(variables.ZONES, isGoogle ? [`${region}-b`, `${region}-c`] : [`${region}a`, `${region}b`]);
  const state = stateFromVariables(variables, env, problems);
  const workerType = variables.WORKER_MACHINE_TYPE ?? (isGoogle ? "n2d-standard-2" : "m7i.large");
  const spot = boolean("SPOT", false);

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
          machine_type: workerType,
          capacity_per_instance: 1,
          max_use_count: 1,
          max_instances: maxInstances,
          spot,
          // AWS spot: more capacity pools of the same size, as prepare advises (lib/model/spot-checks.ts).
          ...(spot && !isGoogle && sameSizeTypes(workerType).length > 0 ? { alternative_machine_types: sameSizeTypes(workerType) } : {}),
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
function stateFromVariables(variables: TriggerVariables, env: NodeJS.ProcessEnv, problems: VariableProblem[]): RunnerModelInput["state"] | undefined {
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
        problems.push({ variable: "STATE_BACKEND", line: `variable STATE_BACKEND: GitLab-managed state (STATE_BACKEND=http${variables.STATE_BACKEND ? "" : ", the default under CI=true"}) needs ${missing.join(" and ")}, not set` });
        return undefined;
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
    ["shards", 0, "workers", "alternative_machine_types"],
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

function parseInteger(name: TriggerVariableName, value: string | undefined, fallback: number, problems: VariableProblem[]): number {
  if (value === undefined) return fallback;
  if (/^[0-9]{1,9}$/.test(value)) return Number(value);
  problems.push({ variable: name, line: `variable ${name}: expected a whole number, received ${JSON.stringify(value)}` });
  return fallback;
}

function parseBoolean(name: TriggerVariableName, value: string | undefined, fallback: boolean, problems: VariableProblem[]): boolean {
  if (value === undefined) return fallback;
  if (value === "true" || value === "false") return value === "true";
  problems.push({ variable: name, line: `variable ${name}: expected true or false, received ${JSON.stringify(value)}` });
  return fallback;
}
