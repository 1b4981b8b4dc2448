/** What an onboard run reports, and that report for people (stdout; --json prints the result itself). */
import { formatPruneReport, type PruneReport } from "../../lib/gitlab/prune";
import { describeTally, type RequestTally } from "../../lib/gitlab/request-pacer";
import { formatMs } from "../../lib/gitlab/retry";
import { formatStatusTable, type ShardStatus } from "../../lib/gitlab/status";
import { formatSteps } from "../../lib/onboard/format-plan";
import type { ShardOutcome } from "../../lib/onboard/outcome";
import type { ShardPlan } from "../../lib/onboard/plan";
import type { NewRunner } from "../../lib/gitlab/client";
import { redactSecrets } from "../../lib/text/redact";
import type { OnboardMode } from "./onboard-options";

export interface OnboardResult {
  readonly ok: boolean;
  readonly exitCode: 0 | 1;
  readonly mode: OnboardMode["kind"];
  readonly dryRun: boolean;
  readonly model: string;
  readonly cell: string;
  readonly gitlabUrl: string;
  /** Per shard, for reconcile/rotate/remove. */
  readonly shards: readonly ShardOutcome[];
  /** With --dry-run (reconcile/rotate/remove): the plan, step by step, that a run would carry out. */
  readonly plan?: readonly ShardPlan[];
  /** With --dry-run and no token: the runner each shard asks for, not yet checked against GitLab. */
  readonly intended?: readonly IntendedRunner[];
  /** Per shard, for --status. */
  readonly status?: readonly ShardStatus[];
  /** For --prune: what was (or would be) deleted. */
  readonly prune?: PruneReport;
  /** Why the run failed, one line each. */
  readonly problems: readonly string[];
  readonly notices: readonly string[];
  /** What the run asked GitLab: requests and time waiting for the rate limit (absent when GitLab was not asked). */
  readonly requests?: RequestTally;
}

/** Several cells onboarded in one run (runOnboardCells in ./onboard.ts). */
export interface OnboardCellsResult {
  readonly ok: boolean;
  readonly exitCode: 0 | 1;
  /** In the order the cells were given. */
  readonly cells: readonly OnboardResult[];
  /** Over every cell (waiting counted once where cells waited at the same time). */
  readonly requests: RequestTally;
}

export interface IntendedRunner {
  readonly shard: string;
  readonly checkedAgainstGitLab: false;
  /** The settings onboard would send (maintenance_note included); never a token. */
  readonly runner: NewRunner;
  /** Where its token would be stored. */
  readonly secret: string;
}

const ACTION_WORDS: Record<ShardOutcome["action"], [done: string, planned: string]> = {
  create: ["created", "would create"],
  update: ["updated", "would update"],
  adopt: ["recovered", "would recover"],
  "adopt-existing": ["adopted", "would adopt"],
  rotate: ["rotated", "would rotate"],
  delete: ["deleted", "would delete"],
  none: ["unchanged", "unchanged"],
  blocked: ["blocked", "blocked"],
  unchecked: ["not checked", "not checked"],
};

export function formatOnboardReport(result: OnboardResult): string {
  const lines: string[] = [`cell ${result.cell} on ${result.gitlabUrl}${result.dryRun ? " (dry run: nothing was changed)" : ""}`];
  if (result.prune) {
    lines.push(...formatPruneReport(result.prune));
  } else if (result.status) {
    lines.push(formatStatusTable(result.status).trimEnd());
  } else {
    const width = Math.max(...result.shards.map((outcome) => outcome.shard.length), 5);
    const plans = new Map((result.plan ?? []).map((plan) => [plan.shard, plan]));
    const intended = new Map((result.intended ?? []).map((wanted) => [wanted.shard, wanted]));
    for (const outcome of result.shards) {
      const [done, planned] = ACTION_WORDS[outcome.action];
      const verb = outcome.error ? `failed (${planned.replace("would ", "")})` : outcome.dryRun ? planned : done;
      const runner = outcome.runnerId === undefined ? "" : ` runner #${outcome.runnerId}`;
      lines.push(`  ${outcome.shard.padEnd(width)}  ${verb}${runner}: ${outcome.reason}`);
      const plan = plans.get(outcome.shard);
      if (plan) for (const step of formatSteps(plan)) lines.push(`      ${step}`);
      for (const change of outcome.changes) lines.push(`      ${change}`);
      if (outcome.tokenStored) lines.push(`      token stored in ${outcome.secret}`);
      for (const note of outcome.notes) lines.push(`      note: ${note}`);
      // A GitLab that never answered is the cell's one problem line below, not repeated per shard.
      if (outcome.error && outcome.failure?.kind !== "not-reached") lines.push(`      error: ${outcome.error}`);
      const wanted = intended.get(outcome.shard);
      if (wanted) lines.push(...describeIntended(wanted).map((line) => `      ${line}`));
    }
  }
  for (const notice of result.notices) lines.push(`warning: ${notice}`);
  for (const problem of result.problems) lines.push(`error: ${problem}`);
  if (result.requests) lines.push(describeTally(result.requests, formatMs));
  return `${redactSecrets(lines.join("\n"))}\n`;
}

/** The runner a shard asks for, in the words of GitLab's runner settings. */
function describeIntended({ runner, secret }: IntendedRunner): string[] {
  const owner = runner.group_id !== undefined ? ` of group ${runner.group_id}` : runner.project_id !== undefined ? ` of project ${runner.project_id}` : "";
  return [
    `intended runner (not yet checked against GitLab): ${runner.runner_type}${owner}, description ${JSON.stringify(runner.description)}`,
    `  tags ${runner.tag_list.length > 0 ? runner.tag_list.join(", ") : "(none)"}; run untagged: ${runner.run_untagged ? "yes" : "no"}; maximum timeout ${runner.maximum_timeout}s; ${runner.access_level}${runner.paused ? "; paused" : ""}${runner.locked ? "; locked" : ""}`,
    `  token would be stored in ${secret}`,
  ];
}

/** Each cell's report whole, in the order given, then one line for the run. */
export function formatOnboardCellsReport(result: OnboardCellsResult): string {
  const failed = result.cells.filter((cell) => cell.exitCode !== 0).map((cell) => cell.cell);
  const verdict = failed.length === 0 ? `${result.cells.length} cell(s) ok` : `${failed.length} of ${result.cells.length} cell(s) failed: ${failed.join(", ")}`;
  const blocks = result.cells.map((cell) => `== ${cell.cell} (${cell.model})\n${formatOnboardReport(cell)}`);
  return `${blocks.join("\n")}\n${redactSecrets(`${verdict}; in all ${describeTally(result.requests, formatMs)}`)}\n`;
}
