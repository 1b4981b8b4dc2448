/**
 * `simulate --export`'s GitLab side: a client for the model's GitLab (its token from the variable the
 * model names), paced at the user's request rate, and the census that finds each shard's runner, as
 * `status` builds them; then lib/simulate/export-trace.ts lists the jobs. The request tally goes to
 * stderr, so a person sees what the export cost.
 */
import { createGitLabClient } from "../../lib/gitlab/client";
import { describeTally } from "../../lib/gitlab/request-pacer";
import { DEFAULT_RETRY_POLICY, SYSTEM_CLOCK, formatMs } from "../../lib/gitlab/retry";
import { RunnerCensus } from "../../lib/gitlab/runner-census";
import { GitLabTraffic } from "../../lib/gitlab/traffic";
import { modelConnection } from "../../lib/gitlab/wire/model-connection";
import type { RunnerModel } from "../../lib/model/schema";
import { UserInputError } from "../../lib/process/errors";
import { exportTrace, DEFAULT_EXPORT_DAYS } from "../../lib/simulate/export-trace";
import type { JobTrace } from "../../lib/simulate/job-trace";
import { redactSecrets, redactValue } from "../../lib/text/redact";
import { counted } from "../../lib/text/counted";
import { RATE_LIMIT_ENV, RETRY_TIMEOUT_ENV, requestsPerMinute, retryBudgetMs } from "../cli/gitlab-settings";

export interface ExportOptions {
  readonly fromSeconds?: number;
  readonly toSeconds?: number;
  readonly env?: NodeJS.ProcessEnv;
  readonly now?: () => number;
  readonly sleep?: (ms: number) => Promise<void>;
  readonly log: (line: string) => void;
}

/** The export window: --from and --to, by default the week up to now. */
export function exportWindow(options: Pick<ExportOptions, "fromSeconds" | "toSeconds" | "now">): { fromSeconds: number; toSeconds: number } {
  const toSeconds = options.toSeconds ?? Math.floor((options.now ?? Date.now)() / 1000);
  return { fromSeconds: options.fromSeconds ?? toSeconds - DEFAULT_EXPORT_DAYS * 86400, toSeconds };
}

export async function exportFromGitLab(model: RunnerModel, options: ExportOptions): Promise<JobTrace> {
  const env = options.env ?? process.env;
  const token = env[model.gitlab.token_env];
  if (!token) throw new UserInputError(`--export reads the jobs from GitLab: set $${model.gitlab.token_env} to a token that can read the runners' jobs (an administrator's, or the runners' owner's, with read_api)`);
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? SYSTEM_CLOCK.sleep;
  const redact = (text: string) => redactValue(redactSecrets(text), token);
  const traffic = new GitLabTraffic({ requestsPerMinute: requestsPerMinute(env[RATE_LIMIT_ENV]) }, { now, sleep });
  const client = createGitLabClient({
    url: model.gitlab.url,
    token,
    tokenEnv: model.gitlab.token_env,
    policy: { ...DEFAULT_RETRY_POLICY, budgetMs: retryBudgetMs(env[RETRY_TIMEOUT_ENV]) },
    clock: { now, sleep, random: SYSTEM_CLOCK.random },
    pacer: traffic.pacerFor(model.gitlab.url, token),
    contact: traffic.contactWith(model.gitlab.url),
    onRetry: (event) => options.log(redact(`gitlab: ${event.reason}; retrying in ${formatMs(event.delayMs)}`)),
    ...modelConnection(model.gitlab),
    warn: options.log,
  });
  const census = new RunnerCensus(client, model, traffic.runnersOf(model.gitlab.url, token));
  const { fromSeconds, toSeconds } = exportWindow({ ...options, now });
  const { trace, shards } = await exportTrace({ model, client, census, fromSeconds, toSeconds, log: (line) => options.log(redact(line)) });
  for (const shard of shards) if (shard.runnerId !== null) options.log(`exported shard ${shard.shard}: ${counted(shard.jobs, "job")} of runner #${shard.runnerId} in ${counted(shard.pages, "page")}`);
  options.log(describeTally(traffic.tally(), formatMs));
  return trace;
}
