/**
 * Which jobs GitLab creates from a pipeline configuration, for a given set of variables.
 *
 * Implements what GitLab documents (doc/ci/yaml/index.md `rules`, `workflow:rules`, `extends`;
 * doc/ci/jobs/job_rules.md; doc/ci/pipelines/downstream_pipelines.md):
 * - `workflow:rules`: the first matching rule decides; no match or `when: never` creates no pipeline;
 * - job `rules`: evaluated in order until the first match; a rule without `if` always matches;
 *   a matched rule without `when` takes the job's `when` (default on_success); `when: never`
 *   or no match leaves the job out;
 * - a job without `rules` (and without only/except) gets GitLab's default, `only: [branches, tags]`
 *   / `except: merge_requests`: it is left out of merge request pipelines, including the child
 *   pipelines of a merge request pipeline (their CI_MERGE_REQUEST_* variables are passed down);
 * - `extends`: hashes merge deeply, other values (arrays included) are replaced, in order;
 * - a pipeline whose jobs are all left out is not created ("no stages/jobs for this pipeline");
 * - a created job that `needs` a job that is not in the pipeline makes the pipeline invalid.
 * Expressions see the pipeline's variables over the YAML's global and job `variables`.
 * `rules:changes`, `rules:exists`, `only`/`except` and `!reference` are refused, not guessed.
 */
import { parse } from "yaml";
import { evaluateExpression, type Variables } from "./expression";

/** Top-level keys that are not jobs (doc/ci/yaml/index.md, "Global keywords"). */
const GLOBAL_KEYWORDS = new Set(["default", "include", "stages", "variables", "workflow", "image", "services", "cache", "before_script", "after_script", "types"]);

type Yaml = Record<string, unknown>;

export type When = "on_success" | "on_failure" | "always" | "manual" | "delayed";

export interface CreatedJob {
  readonly name: string;
  readonly when: When;
  readonly allowFailure?: unknown;
  /** The job after `extends` (typed loosely: tests read whatever key they check). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly definition: Record<string, any>;
}

export type PipelineOutcome =
  | { readonly created: true; readonly jobs: readonly CreatedJob[] }
  | { readonly created: false; readonly reason: string };

const isObject = (value: unknown): value is Yaml => typeof value === "object" && value !== null && !Array.isArray(value);

function deepMerge(base: Yaml, override: Yaml): Yaml {
  const merged: Yaml = { ...base };
  for (const [key, value] of Object.entries(override)) {
    merged[key] = isObject(value) && isObject(merged[key]) ? deepMerge(merged[key] as Yaml, value) : value;
  }
  return merged;
}

function resolveExtends(config: Yaml, name: string, seen: readonly string[] = []): Yaml {
  if (seen.includes(name)) throw new Error(`extends loop: ${[...seen, name].join(" -> ")}`);
  const job = config[name];
  if (!isObject(job)) throw new Error(`extends names "${name}", which is not a job or hidden job`);
  const parents = job.extends === undefined ? [] : Array.isArray(job.extends) ? job.extends : [job.extends];
  let merged: Yaml = {};
  for (const parent of parents) merged = deepMerge(merged, resolveExtends(config, String(parent), [...seen, name]));
  const { extends: _extends, ...own } = job;
  return deepMerge(merged, own);
}

function variablesOf(section: unknown): Record<string, string> {
  if (!isObject(section)) return {};
  return Object.fromEntries(
    Object.entries(section).map(([key, value]) => [key, String(isObject(value) ? (value.value ?? "") : value)]),
  );
}

interface Rule {
  readonly if?: string;
  readonly when?: When | "never";
  readonly allow_failure?: unknown;
  readonly variables?: Yaml;
}

function firstMatchingRule(rules: unknown, variables: Variables, where: string): Rule | undefined {
  if (!Array.isArray(rules)) throw new Error(`${where}: rules must be a list`);
  for (const entry of rules as unknown[]) {
    if (!isObject(entry)) throw new Error(`${where}: a rule must be a hash (is !reference in use?)`);
    const rule = entry as Rule;
    for (const key of Object.keys(rule)) {
      if (!["if", "when", "allow_failure", "variables", "needs", "interruptible"].includes(key)) {
        throw new Error(`${where}: rules:${key} is not supported by this evaluator`);
      }
    }
    if (rule.if === undefined || evaluateExpression(String(rule.if), variables)) return rule;
  }
  return undefined;
}

/** The jobs GitLab creates for `yamlText` when the pipeline has `variables` (predefined and pipeline variables). */
export function evaluatePipeline(yamlText: string, variables: Variables): PipelineOutcome {
  const config = parse(yamlText) as Yaml;
  const globalVariables = variablesOf(config.variables);
  let pipelineVariables: Record<string, string | undefined> = { ...globalVariables, ...variables };

  const workflow = isObject(config.workflow) ? config.workflow : undefined;
  if (workflow?.rules !== undefined) {
    const rule = firstMatchingRule(workflow.rules, pipelineVariables, "workflow");
    if (!rule) return { created: false, reason: "no workflow rule matches" };
    if (rule.when === "never") return { created: false, reason: "a workflow rule with when: never matches" };
    pipelineVariables = { ...pipelineVariables, ...variablesOf(rule.variables) };
  }

  const mergeRequestPipeline = Boolean(pipelineVariables.CI_MERGE_REQUEST_IID);
  const jobs: CreatedJob[] = [];
  for (const name of Object.keys(config)) {
    if (GLOBAL_KEYWORDS.has(name) || name.startsWith(".")) continue;
    const job = resolveExtends(config, name);
    if (job.only !== undefined || job.except !== undefined) throw new Error(`${name}: only/except are not supported by this evaluator`);
    const jobWhen = (job.when as When | undefined) ?? "on_success";
    if (job.rules === undefined) {
      // GitLab's default for a job without rules: branches and tags, never merge requests.
      if (!mergeRequestPipeline) jobs.push({ name, when: jobWhen, allowFailure: job.allow_failure, definition: job });
      continue;
    }
    const jobVariables = { ...globalVariables, ...variablesOf(job.variables), ...variables };
    const rule = firstMatchingRule(job.rules, jobVariables, name);
    if (!rule || rule.when === "never") continue;
    jobs.push({ name, when: rule.when ?? jobWhen, allowFailure: rule.allow_failure ?? job.allow_failure, definition: job });
  }

  if (jobs.length === 0) return { created: false, reason: "no stages/jobs for this pipeline: the rules left every job out" };
  const names = new Set(jobs.map((job) => job.name));
  for (const job of jobs) {
    const needs = Array.isArray(job.definition.needs) ? job.definition.needs : [];
    for (const need of needs) {
      const needed = typeof need === "string" ? need : isObject(need) && typeof need.job === "string" && need.pipeline === undefined && need.project === undefined ? need.job : undefined;
      const optional = isObject(need) && need.optional === true;
      if (needed !== undefined && !optional && !names.has(needed)) {
        return { created: false, reason: `'${job.name}' job needs '${needed}' job, but '${needed}' is not in the pipeline` };
      }
    }
  }
  return { created: true, jobs };
}

/** Names of the created jobs, or the reason no pipeline is created. */
export function jobNames(outcome: PipelineOutcome): readonly string[] | string {
  return outcome.created ? outcome.jobs.map((job) => job.name) : `not created: ${outcome.reason}`;
}
