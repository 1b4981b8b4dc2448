/**
 * `gate`: the gate after one wave of a rollout (docs/operations/rollouts.md). The apply child pipeline
 * runs `gate --wave <name> --cells <wave's cells> --not-yet-rolled <later cells> --post` after the wave's
 * applies; it waits for the bake, compares the wave with its baseline (lib/rollout/gate.ts) and exits 0
 * (the next wave starts) or 1 (the rollout stops: later waves need this job, so GitLab skips them).
 * `gate --wave <name> --promote` is the manual promote:<wave> job: it records who promoted (GITLAB_USER_LOGIN).
 *
 * The cells' jobs come from each cell's GitLab (gitlab.url, the token in gitlab.token_env); the merge request
 * note and the promotion from the models project's GitLab (CI_SERVER_URL, CI_PROJECT_ID, CI_PIPELINE_ID,
 * CI_COMMIT_SHA, GITLAB_REVIEW_TOKEN or GITLAB_TOKEN, as review --post).
 */
import { resolve } from "node:path";
import { Option, type Command } from "commander";
import { cliCommand, jsonOption, modelsDirOption, withDefault } from "../cli/options";
import type { GitLabClient, RolloutProjectClient } from "../../lib/gitlab/client";
import { gitlabClientModule } from "../../lib/gitlab/load-client";
import { readMergeRequestNoteTarget, upsertMergeRequestNote, DEFAULT_TOKEN_VARIABLES } from "../../lib/gitlab/merge-request-note";
import { describeTally } from "../../lib/gitlab/request-pacer";
import { DEFAULT_RETRY_POLICY, SYSTEM_CLOCK, formatMs } from "../../lib/gitlab/retry";
import { RunnerCensus } from "../../lib/gitlab/runner-census";
import { GitLabTraffic } from "../../lib/gitlab/traffic";
import { modelConnection } from "../../lib/gitlab/wire/model-connection";
import { loadModelFile } from "../../lib/model/load";
import { modelsDir as resolveModelsDir, resolveModelArgument } from "../../lib/model/model-files";
import { UserInputError } from "../../lib/process/errors";
import { CellJobs } from "../../lib/rollout/cell-jobs";
import { runGate, type GateOutcome, type JobSource, type Promotion } from "../../lib/rollout/gate";
import { loadRolloutPolicy } from "../../lib/rollout/load-policy";
import { rolloutWorkspace } from "../../lib/rollout/rollout-plan";
import { redactSecrets } from "../../lib/text/redact";
import { RATE_LIMIT_ENV, RETRY_TIMEOUT_ENV, requestsPerMinute, retryBudgetMs } from "../cli/gitlab-settings";

/** First line of a rollout note: one note per wave and pipeline, edited when the gate runs again. */
export const ROLLOUT_NOTE_MARKER = "<!-- runner-fleet-rollout";

export interface GateOptions {
  readonly wave: string;
  readonly cells: readonly string[];
  readonly notYetRolled: readonly string[];
  readonly manual?: boolean;
  /** Record a person's promotion of the wave instead of judging it. */
  readonly promote?: boolean;
  /** Post the outcome on the merged merge request. */
  readonly post?: boolean;
  readonly cwd?: string;
  readonly modelsDir?: string;
  /** When the wave's applies finished (ms). @default - now: the gate starts when they finish */
  readonly sinceMs?: number;
  readonly env?: NodeJS.ProcessEnv;
  readonly clock?: { readonly now: () => number; readonly sleep: (ms: number) => Promise<void> };
  readonly log?: (line: string) => void;
}

export interface GateResult {
  readonly outcome: GateOutcome["outcome"] | "promotion-recorded";
  readonly summary: string;
  readonly note?: { readonly action: string; readonly mergeRequestIid: number };
  /** 0: the next wave may start; 1: the rollout stops. */
  readonly exitCode: 0 | 1;
}

export async function runGateCommand(options: GateOptions): Promise<GateResult> {
  const env = options.env ?? process.env;
  const cwd = resolve(options.cwd ?? process.cwd());
  const clock = options.clock ?? { now: Date.now, sleep: SYSTEM_CLOCK.sleep };
  const log = options.log ?? ((line: string) => process.stdout.write(`${line}\n`));
  const { policy } = loadRolloutPolicy(rolloutWorkspace(cwd, options.modelsDir));
  const project = projectConnection(env, clock);

  if (options.promote) {
    const user = env.GITLAB_USER_LOGIN?.trim();
    if (!user) throw new UserInputError("gate --promote records who promoted: it runs as the manual promote:<wave> job, where GitLab sets GITLAB_USER_LOGIN to the person who started it");
    const summary = `wave ${options.wave} promoted by ${user}${env.CI_JOB_ID ? ` (job #${env.CI_JOB_ID})` : ""}: a waiting gate:${options.wave} passes at its next poll; a failed one passes when retried`;
    log(summary);
    const note = options.post ? await postNote(project, env, options.wave, `:arrow_forward: ${summary}`) : undefined;
    return { outcome: "promotion-recorded", summary, ...(note ? { note } : {}), exitCode: 0 };
  }

  const models = resolve(cwd, resolveModelsDir(options.modelsDir));
  const sinceMs = options.sinceMs ?? clock.now();
  const sources = new Map<string, CellJobs>();
  const traffic = new GitLabTraffic({ requestsPerMinute: requestsPerMinute(env[RATE_LIMIT_ENV]) }, clock);
  const connect = (cell: string): CellJobs => {
    const existing = sources.get(cell);
    if (existing) return existing;
    const { model } = loadModelFile(resolveModelArgument(cell, models), { requireFileNameMatch: true });
    const token = env[model.gitlab.token_env]?.trim();
    if (!token) throw new UserInputError(`the gate reads cell ${cell}'s jobs from GitLab: set $${model.gitlab.token_env} to a token that can read its runners' jobs (an administrator's, with read_api)`);
    const client: GitLabClient = gitlabClientModule().createGitLabClient({
      url: model.gitlab.url,
      token,
      tokenEnv: model.gitlab.token_env,
      policy: { ...DEFAULT_RETRY_POLICY, budgetMs: retryBudgetMs(env[RETRY_TIMEOUT_ENV]) },
      clock: { ...clock, random: SYSTEM_CLOCK.random },
      pacer: traffic.pacerFor(model.gitlab.url, token),
      contact: traffic.contactWith(model.gitlab.url),
      onRetry: (event) => log(redactSecrets(`gitlab: ${event.reason}; retrying in ${formatMs(event.delayMs)}`)),
      ...modelConnection(model.gitlab),
      warn: log,
    });
    const source = new CellJobs({ model, client, census: new RunnerCensus(client, model, traffic.runnersOf(model.gitlab.url, token)) }, log);
    sources.set(cell, source);
    return source;
  };
  // Every model and token is checked before the first wait: a missing token is exit 2 now, not in six hours.
  for (const cell of [...options.cells, ...options.notYetRolled]) connect(cell);
  const jobs: JobSource = (cell, fromMs, toMs, pollMs) => connect(cell).jobs(fromMs, toMs, sinceMs, pollMs);
  const outcome = await runGate({
    wave: options.wave,
    cells: options.cells,
    notYetRolled: options.notYetRolled,
    sinceMs,
    policy,
    manual: Boolean(options.manual),
    jobs,
    promotion: project ? () => findPromotion(project, env, options.wave) : undefined,
    clock,
    log,
  });
  log(outcome.summary);
  log(describeTally(traffic.tally(), formatMs));
  const passed = outcome.outcome === "pass" || outcome.outcome === "promoted";
  const rollBack = passed ? "" : "\n\nNothing was rolled back. To roll back the cells already rolled, run the manual job `rollback` (it opens a merge request that reverts this merge; GitLab's Revert button does the same); to go on anyway, run the manual job `promote:" + options.wave + "`.";
  const note = options.post ? await postNote(project, env, options.wave, `${passed ? ":white_check_mark:" : ":octagonal_sign:"} Rollout\n\n\`\`\`\n${outcome.summary}\n\`\`\`${rollBack}`) : undefined;
  return { outcome: outcome.outcome, summary: outcome.summary, ...(note ? { note } : {}), exitCode: passed ? 0 : 1 };
}

interface ProjectConnection {
  readonly client: RolloutProjectClient;
  readonly serverUrl: string;
  readonly projectId: string;
  readonly token: string;
  readonly tokenVariable: string;
}

/** The models project's GitLab, when the job has its CI variables and a token; undefined outside a pipeline. */
function projectConnection(env: NodeJS.ProcessEnv, clock: { readonly now: () => number; readonly sleep: (ms: number) => Promise<void> }): ProjectConnection | undefined {
  const serverUrl = env.CI_SERVER_URL?.trim();
  const projectId = env.CI_PROJECT_ID?.trim();
  const tokenVariable = DEFAULT_TOKEN_VARIABLES.find((name) => env[name]?.trim());
  if (!serverUrl || !projectId || !tokenVariable) return undefined;
  const token = env[tokenVariable]!.trim();
  const client = gitlabClientModule().createRolloutProjectClient({
    url: serverUrl,
    token,
    tokenEnv: tokenVariable,
    urlSource: "$CI_SERVER_URL",
    policy: DEFAULT_RETRY_POLICY,
    clock: { ...clock, random: SYSTEM_CLOCK.random },
  });
  return { client, serverUrl, projectId, token, tokenVariable };
}

/** The successful promote:<wave> job of this pipeline, and who ran it (the job's user: who started the manual job). */
async function findPromotion(project: ProjectConnection, env: NodeJS.ProcessEnv, wave: string): Promise<Promotion | undefined> {
  const pipelineId = Number(env.CI_PIPELINE_ID);
  if (!Number.isInteger(pipelineId) || pipelineId <= 0) return undefined;
  const jobs = await project.client.successfulPipelineJobs(project.projectId, pipelineId, `look for a promotion of wave ${wave} in pipeline ${pipelineId}`);
  const promote = jobs.find((job) => job.name === `promote:${wave}` && job.status === "success");
  return promote ? { user: promote.user?.username ?? "(unknown user)", jobId: promote.id } : undefined;
}

/** Posts (or edits) this wave's note on the merge request the pipeline's commit was merged from. */
async function postNote(project: ProjectConnection | undefined, env: NodeJS.ProcessEnv, wave: string, body: string): Promise<{ action: string; mergeRequestIid: number } | undefined> {
  const sha = env.CI_COMMIT_SHA?.trim();
  if (!project || !sha) throw new UserInputError("--post writes on the merged merge request: it needs CI_SERVER_URL, CI_PROJECT_ID, CI_COMMIT_SHA and a token in GITLAB_REVIEW_TOKEN or GITLAB_TOKEN");
  const mergeRequests = await project.client.mergeRequestsOfCommit(project.projectId, sha, `find the merge request of commit ${sha.slice(0, 8)}`);
  const merged = mergeRequests.find((entry) => entry.state === "merged") ?? mergeRequests[0];
  if (!merged) return undefined;
  const marker = `${ROLLOUT_NOTE_MARKER} ${env.CI_PIPELINE_ID ?? ""} ${wave} -->`;
  const target = readMergeRequestNoteTarget({ ...env, CI_MERGE_REQUEST_IID: String(merged.iid), [project.tokenVariable]: project.token }, project.tokenVariable);
  const result = await upsertMergeRequestNote(target, `${marker}\n${body}`, marker);
  return { action: result.action, mergeRequestIid: merged.iid };
}

const list = (text: string | undefined) => (text ?? "").split(",").map((entry) => entry.trim()).filter((entry) => entry !== "");

export function gateCommand(): Command {
  return cliCommand("gate")
    .description("Judge one wave of a rollout against its baseline (or, with --promote, record a person's promotion); exit 0 lets the next wave start.")
    .requiredOption("--wave <name>", "the wave's name (rollout.yaml)")
    .option("--cells <list>", "the wave's cells, comma-separated")
    .addOption(withDefault(new Option("--not-yet-rolled <list>", "cells of later waves, comma-separated: part of the baseline"), "none"))
    .option("--manual", "a cell of the wave is in manual_promotion: only a person's promotion passes the gate")
    .option("--promote", "record that the person running this job (GITLAB_USER_LOGIN) promotes the wave")
    .option("--post", "post the outcome on the merge request the pipeline's commit came from")
    .addOption(modelsDirOption())
    .addOption(jsonOption("print the outcome as JSON on stdout (outcome, summary, note, exitCode); progress goes to stderr"))
    .addHelpText("after", "\nExit codes: 0 passed or promoted, 1 failed, not enough jobs to judge, or not promoted, 2 invalid usage, policy or model.")
    .action(async (flags: { wave: string; cells?: string; notYetRolled?: string; manual?: boolean; promote?: boolean; post?: boolean; modelsDir?: string; json?: boolean }) => {
      if (!/^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/.test(flags.wave)) throw new UserInputError(`--wave must be a wave name of rollout.yaml such as "canary", got ${JSON.stringify(flags.wave)}`);
      const cells = list(flags.cells);
      if (!flags.promote && cells.length === 0) throw new UserInputError("--cells names the wave's cells, e.g. --cells cell-1,cell-2");
      // With --json, stdout holds the outcome alone: the gate's progress and summary lines go to stderr.
      const log = flags.json ? (line: string) => process.stderr.write(`${line}\n`) : undefined;
      const result = await runGateCommand({ wave: flags.wave, cells, notYetRolled: list(flags.notYetRolled), manual: flags.manual, promote: flags.promote, post: flags.post, modelsDir: flags.modelsDir, ...(log ? { log } : {}) });
      if (flags.json) process.stdout.write(`${redactSecrets(JSON.stringify(result, null, 2))}\n`);
      else if (result.note) process.stdout.write(`rollout note ${result.note.action} on merge request !${result.note.mergeRequestIid}\n`);
      if (result.exitCode !== 0) process.exitCode = result.exitCode;
    });
}
