/**
 * The job-failure and failed-job-request alerts mean the same on both clouds (lib/contract/fleet-alerts.ts). Each case
 * is what a shard's managers did in one window; Google's policy is evaluated on the metrics gitlab-runner
 * would export for it (the real promtool), AWS's alarm on the log lines gitlab-runner would write for it (its
 * synthesized metric filters through a stand-in of CloudWatch's filter syntax, then its metric math). Both
 * must give the case's answer. Thresholds are the same on both sides: cell-2 is given cell-1's ratio.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { exampleModel, modelWith } from "../support/models";
import { validatorPath } from "../support/validators";
import { matchesJsonFilter } from "../support/cloudwatch-filter";
import { matchesLoggingFilter } from "../support/logging-filter";
import { jobRequestFailuresMetricName, promqlMetricName } from "../../constructs/google/fleet-monitoring";
import { googleFleetOf, googleTestStack, resourcesOf as googleResourcesOf, synth as synthGoogle } from "./google/support";
import { awsFleetOf, awsTestStack, resourcesOf, synthJson } from "./aws/support";

const google = exampleModel("cell-1");
const ratio = google.monitoring.thresholds.job_failure_ratio;
const aws = modelWith("cell-2", (draft) => void (draft.monitoring.thresholds.job_failure_ratio = ratio));
const googleShard = google.shards[0].name;
const awsShard = aws.shards[0].name;

const googleStack = googleTestStack();
const googleAlerts = googleFleetOf(googleStack, google).monitoring!.alerts.filter((alert) => alert.shard === googleShard);
/** The log-based metric's filter as synthesized. */
const jobRequestFailureFilter: string = googleResourcesOf(synthGoogle(googleStack), "google_logging_metric")[0].filter;
const jobRequestFailuresSeries = promqlMetricName(`logging.googleapis.com/user/${jobRequestFailuresMetricName(google.cell.id)}`);
const awsStack = awsTestStack();
awsFleetOf(awsStack, aws);
const awsJson = synthJson(awsStack).json;
const filters = Object.values(resourcesOf(awsJson, "aws_cloudwatch_log_metric_filter")).filter((filter) => filter.name.includes(`-${awsShard}-`));
const alarms = Object.values(resourcesOf(awsJson, "aws_cloudwatch_metric_alarm"));

/** The log lines of one window, as gitlab-runner writes them with log_format = "json". */
type LogLine = Record<string, string>;
const repeat = (count: number, line: LogLine): LogLine[] => Array.from({ length: count }, () => line);

/** AWS: every filter counts its matching lines; the alarm compares its metric (or metric math) with its threshold. */
function awsAlarmFires(alarmSuffix: string, lines: LogLine[]): boolean {
  const values = new Map<string, number>();
  for (const filter of filters) {
    values.set(filter.metric_transformation.name, lines.filter((line) => matchesJsonFilter(filter.pattern, line)).length);
  }
  const alarm = alarms.find((candidate) => candidate.alarm_name === `${aws.cell.id}-${awsShard}-${alarmSuffix}`)!;
  expect(alarm.comparison_operator).toBe("GreaterThanOrEqualToThreshold");
  let value: number;
  if (alarm.metric_query) {
    const math = alarm.metric_query.find((query: { expression?: string }) => query.expression).expression as string;
    // The one expression the jobs-failing alarm uses; anything else fails here rather than being guessed at.
    const parsed = /^IF\(finished >= (\d+), FILL\(failed, 0\) \/ finished, 0\)$/.exec(math);
    expect(parsed).not.toBeNull();
    const metricOf = (id: string) => values.get(alarm.metric_query.find((query: { id: string }) => query.id === id).metric.metric_name) ?? 0;
    const finished = metricOf("finished");
    value = finished >= Number(parsed![1]) ? metricOf("failed") / finished : 0;
  } else {
    value = values.get(alarm.metric_name) ?? 0;
  }
  return value >= alarm.threshold;
}

/** The labels the Ops Agent puts on manager 0's metrics (and, without `job`, on its log entries). */
const managerLabels = { gitlab_cell: google.cell.id, runner_shard: googleShard, runner_slot: "0" };

/**
 * Google: promtool evaluates the policy's PromQL on counters that grow evenly through the window. `base`: the labels
 * every series has (the Prometheus receiver's, by default; a log-based metric has only its extracted labels).
 */
function googleAlertFires(
  kind: string,
  counters: Array<{ metric: string; labels: Record<string, string>; perMinute: number }>,
  base: Record<string, string> = { job: "gitlab-runner", ...managerLabels },
): boolean {
  const alert = googleAlerts.find((candidate) => candidate.kind === kind)!;
  const dir = mkdtempSync(join(tmpdir(), "alert-meaning-"));
  try {
    const agentLabels = base;
    const rules = join(dir, "rules.yml");
    writeFileSync(rules, JSON.stringify({ groups: [{ name: "g", rules: [{ alert: kind, expr: alert.query, for: "0s" }] }] }));
    const input_series = counters.map(({ metric, labels, perMinute }) => ({
      series: `${metric}{${Object.entries({ ...agentLabels, ...labels }).map(([key, value]) => `${key}=${JSON.stringify(value)}`).join(",")}}`,
      values: `0+${perMinute}x40`,
    }));
    const tests = join(dir, "tests.yml");
    writeFileSync(tests, JSON.stringify({ rule_files: [rules], evaluation_interval: "1m", tests: [{ interval: "1m", input_series, alert_rule_test: [{ eval_time: "30m", alertname: kind, exp_alerts: [] }] }] }));
    const result = spawnSync(validatorPath("promtool"), ["test", "rules", tests], { encoding: "utf8" });
    const output = result.stdout + result.stderr;
    // The expectation "no alert" passes or fails: failing means the alert fired (and only that, checked below).
    if (result.status === 0) return false;
    expect(output).toMatch(/exp:\[\],\s*\n?\s*got:\[/);
    return true;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("the job-failure alert means the same on Google Cloud and AWS", () => {
  // Jobs finished in the 15-minute window: succeeded, failed for the runner's reasons, failed in the job's script.
  const cases: Array<[string, { succeeded: number; system: number; script: number }, boolean]> = [
    ["30% runner system failures of 30 jobs", { succeeded: 15, system: 9, script: 6 }, true],
    ["mostly red pipelines, few system failures", { succeeded: 12, system: 3, script: 15 }, false],
    ["every job failed, but only 6 finished (below the minimum)", { succeeded: 0, system: 6, script: 0 }, false],
    ["a quiet window", { succeeded: 0, system: 0, script: 0 }, false],
    ["half of 60 jobs lost to the runner", { succeeded: 30, system: 30, script: 0 }, true],
  ];
  it.each(cases)("%s", (_name, window, fires) => {
    const finished = window.succeeded + window.system + window.script;
    const lines = [
      ...repeat(window.succeeded, { level: "info", msg: "Job succeeded" }),
      ...repeat(window.system, { level: "error", msg: "Job failed (system failure): prepare environment: dial tcp: i/o timeout" }),
      ...repeat(window.script, { level: "warning", msg: "Job failed: exit code 1" }),
    ];
    const perMinute = (count: number) => count / 15;
    const counters: Array<{ metric: string; labels: Record<string, string>; perMinute: number }> = [
      { metric: "gitlab_runner_job_duration_seconds_count", labels: {}, perMinute: perMinute(finished) },
      { metric: "gitlab_runner_failed_jobs_total", labels: { failure_reason: "runner_system_failure" }, perMinute: perMinute(window.system) },
      { metric: "gitlab_runner_failed_jobs_total", labels: { failure_reason: "script_failure" }, perMinute: perMinute(window.script) },
    ];
    expect({ aws: awsAlarmFires("jobs-failing", lines), google: googleAlertFires("job-failure-ratio", counters) }).toEqual({ aws: fires, google: fires });
  });
});

describe("the failed-job-request alert means the same on Google Cloud and AWS", () => {
  // Job requests in the 10-minute window by status; 204 is logged at debug level only (network/gitlab.go).
  const logLine: Record<string, LogLine> = {
    "201": { level: "info", msg: "Checking for jobs... received" },
    "403": { level: "error", msg: "Checking for jobs... forbidden", status: "403 Forbidden" },
    "-100": { level: "error", msg: "Checking for jobs... client error", status: "couldn't execute POST: tls: failed to verify certificate" },
    "503": { level: "warning", msg: "Checking for jobs... GitLab instance currently unavailable", status: "503 Service Unavailable" },
    "502": { level: "warning", msg: "Checking for jobs... failed", status: "502 Bad Gateway" },
    "409": { level: "warning", msg: "Checking for jobs... failed", status: "409 Conflict" },
  };
  const cases: Array<[string, Record<string, number>, boolean]> = [
    ["a healthy shard: jobs, no jobs, a few request conflicts", { "201": 40, "204": 160, "409": 8 }, false],
    ["a revoked token: every request forbidden", { "403": 20 }, true],
    ["a private CA that no longer verifies", { "-100": 10 }, true],
    ["a short GitLab blip", { "201": 30, "204": 100, "503": 3 }, false],
    ["GitLab's load balancer failing", { "204": 50, "502": 6, "503": 4 }, true],
  ];
  it.each(cases)("%s", (_name, byStatus, fires) => {
    const lines = Object.entries(byStatus).flatMap(([status, count]) => (logLine[status] ? repeat(count, logLine[status]) : []));
    // Google: the same lines as the journal entries the Ops Agent ships (lib/render/ops-agent-config.ts), counted by the
    // log-based metric's filter through a stand-in of Cloud Logging's query language, then the policy's PromQL.
    const entries = lines.map((line) => journalEntry("gitlab-runner.service", line));
    // Another unit's line that quotes the same words is not the runner's request.
    entries.push(journalEntry("runner-fleet-manager.service", logLine["-100"]));
    const counted = entries.filter((entry) => matchesLoggingFilter(jobRequestFailureFilter, entry)).length;
    const counters = [{ metric: jobRequestFailuresSeries, labels: {}, perMinute: counted / 10 }];
    expect({ aws: awsAlarmFires("job-requests-failing", lines), google: googleAlertFires("job-requests-failing", counters, managerLabels) }).toEqual({ aws: fires, google: fires });
  });
});

/**
 * A journal entry as the Ops Agent ships it: the unit, gitlab-runner's JSON line as MESSAGE (logrus's JSON formatter
 * writes its keys sorted), and the labels the agent's modify_fields processor adds.
 */
function journalEntry(unit: string, line: LogLine) {
  const fields: Record<string, string> = { ...line, time: "2026-11-28T12:00:00Z", runner: "t1_abc123" };
  const message = JSON.stringify(Object.fromEntries(Object.keys(fields).sort().map((key) => [key, fields[key]])));
  return { jsonPayload: { MESSAGE: message, _SYSTEMD_UNIT: unit }, labels: managerLabels };
}

describe("the Cloud Logging filter stand-in", () => {
  it("fails when a filter uses syntax it does not know, and binds OR tighter than AND as the language does", () => {
    const entry = { jsonPayload: { MESSAGE: "Checking for jobs... failed 409 Conflict", UNIT: "u" } };
    expect(() => matchesLoggingFilter("jsonPayload.MESSAGE > 3", entry)).toThrow(/unsupported operator/);
    // (false OR true) AND false: false; with AND binding tighter it would be true.
    expect(matchesLoggingFilter('jsonPayload.UNIT="x" OR jsonPayload.UNIT="u" AND jsonPayload.UNIT="y"', entry)).toBe(false);
    expect(matchesLoggingFilter('jsonPayload.MESSAGE:"checking FOR jobs" AND NOT jsonPayload.MESSAGE:"409 Conflict"', entry)).toBe(false);
    expect(matchesLoggingFilter('jsonPayload.MISSING:"x" OR jsonPayload.MESSAGE:"failed"', entry)).toBe(true);
  });
});

describe("the CloudWatch filter stand-in", () => {
  it("fails when a pattern uses syntax it does not know, and matches wildcards and !=", () => {
    expect(() => matchesJsonFilter("{ $.level > 3 }", { level: "4" })).toThrow(/unsupported operator/);
    expect(matchesJsonFilter('{ ($.msg = "a*") && ($.status != "409*") }', { msg: "abc", status: "502 Bad Gateway" })).toBe(true);
    expect(matchesJsonFilter('{ ($.msg = "a*") && ($.status != "409*") }', { msg: "abc", status: "409 Conflict" })).toBe(false);
    expect(matchesJsonFilter('{ $.status != "409*" }', { msg: "no status" })).toBe(false);
  });
});
