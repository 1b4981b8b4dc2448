/**
 * Messages that say what would pass (issue 37): each mistake a newcomer made, with the exact line a
 * person reads, and the suggested value checked to load.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { formatIssue, type ModelIssue } from "../../lib/model/issues";
import { parseModel } from "../../lib/model/load";
import { runInProcess, STACK_TRACE_LINE } from "../support/cli";
import { BASE_MODEL, withAppended, withLine } from "./invalid-cases";

/** The errors of a model as printed, or [] when it loads. */
function errorsOf(text: string): string[] {
  try {
    parseModel(text, "cell-9.yaml");
    return [];
  } catch (error) {
    const issues = (error as { issues?: ModelIssue[] }).issues;
    if (!issues) throw error;
    return issues.map(formatIssue);
  }
}

const policy = (line: string) => withAppended(`    autoscaling:\n      policies:\n        - ${line}`);
const maximumTimeout = (value: string) => withLine(12, `    tags: [docker]\n    maximum_timeout: ${value}`);
const runnerVersion = (value: string) => withLine(15, `      runner_version: ${value}`);

describe("a number where text was wanted: the value that passes, not just quote it", () => {
  it.each([
    [
      "idle_time: 20 (minutes: an idle time of 20 seconds is no one's intent)",
      policy("idle_time: 20"),
      'cell-9.yaml:21:22: shards[0].autoscaling.policies[0].idle_time: expected a string, received 20 (a Go duration with its unit, such as "20m", "1h30m" or "90s"; write "20m": YAML reads the unquoted 20 as a number)',
      policy('idle_time: "20m"'),
    ],
    [
      "idle_time: 1800 (seconds, as docker-machine's IdleTime)",
      policy("idle_time: 1800"),
      'cell-9.yaml:21:22: shards[0].autoscaling.policies[0].idle_time: expected a string, received 1800 (a Go duration with its unit, such as "20m", "1h30m" or "90s"; write "30m": YAML reads the unquoted 1800 as a number)',
      policy('idle_time: "30m"'),
    ],
    [
      "maximum_timeout: 3600 (seconds, as GitLab's runner API counts it)",
      maximumTimeout("3600"),
      'cell-9.yaml:13:22: shards[0].maximum_timeout: expected a string, received 3600 (a Go duration with its unit, such as "20m", "1h30m" or "90s"; write "1h": YAML reads the unquoted 3600 as a number)',
      maximumTimeout('"1h"'),
    ],
    [
      "runner_version: 19.6",
      runnerVersion("19.6"),
      'cell-9.yaml:15:23: shards[0].managers.runner_version: expected a string, received 19.6 (a full gitlab-runner version such as "19.5.0"; write "19.6.0": YAML reads the unquoted 19.6 as a number)',
      runnerVersion('"19.6.0"'),
    ],
    [
      "runner_version: 18.10, which YAML reads as 18.1",
      runnerVersion("18.10"),
      'cell-9.yaml:15:23: shards[0].managers.runner_version: expected a string, received 18.1 (a full gitlab-runner version such as "19.5.0"; write "18.10.0": YAML reads the unquoted 18.10 as a number)',
      runnerVersion('"18.10.0"'),
    ],
  ])("%s", (_name, text, message, fixed) => {
    expect(errorsOf(text)).toEqual([message]);
    expect(errorsOf(fixed)).toEqual([]);
  });
});

describe("did you mean, for values as for keys", () => {
  it.each([
    [
      "idle_time: 20min",
      policy("idle_time: 20min"),
      'cell-9.yaml:21:22: shards[0].autoscaling.policies[0].idle_time: expected a Go duration such as "20m", "1h30m" or "90s", at most 2562047h (Go\'s maximum), received "20min" (did you mean "20m"?)',
      policy("idle_time: 20m"),
    ],
    [
      'idle_time: "20", quoted as the old advice said',
      policy('idle_time: "20"'),
      'cell-9.yaml:21:22: shards[0].autoscaling.policies[0].idle_time: expected a Go duration such as "20m", "1h30m" or "90s", at most 2562047h (Go\'s maximum), received "20" (did you mean "20m"?)',
      policy("idle_time: 20m"),
    ],
    [
      "maximum_timeout: 1d (Go has no days)",
      maximumTimeout("1d"),
      'cell-9.yaml:13:22: shards[0].maximum_timeout: expected a Go duration such as "20m", "1h30m" or "90s", at most 2562047h (Go\'s maximum), received "1d" (did you mean "24h"?)',
      maximumTimeout("24h"),
    ],
    [
      "maximum_timeout: 1 hour 30 minutes",
      maximumTimeout("1 hour 30 minutes"),
      'cell-9.yaml:13:22: shards[0].maximum_timeout: expected a Go duration such as "20m", "1h30m" or "90s", at most 2562047h (Go\'s maximum), received "1 hour 30 minutes" (did you mean "1h30m"?)',
      maximumTimeout("1h30m"),
    ],
    [
      "runner_version: v19.6.0",
      runnerVersion("v19.6.0"),
      'cell-9.yaml:15:23: shards[0].managers.runner_version: expected a pinned gitlab-runner version such as "19.5.0", received "v19.6.0" (did you mean "19.6.0"?)',
      runnerVersion("19.6.0"),
    ],
  ])("%s", (_name, text, message, fixed) => {
    expect(errorsOf(text)).toEqual([message]);
    expect(errorsOf(fixed)).toEqual([]);
  });

  it("offers nothing for text that is not near the format", () => {
    expect(errorsOf(policy("idle_time: soon"))).toEqual([
      'cell-9.yaml:21:22: shards[0].autoscaling.policies[0].idle_time: expected a Go duration such as "20m", "1h30m" or "90s", at most 2562047h (Go\'s maximum), received "soon"',
    ]);
    expect(errorsOf(runnerVersion("latest"))).toEqual([
      'cell-9.yaml:15:23: shards[0].managers.runner_version: expected a pinned gitlab-runner version such as "19.5.0", received "latest"',
    ]);
  });
});

describe("prepare, as a person runs it", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "messages-that-pass-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("fails when values miss their format, with exit 2, every line at once and the values that pass", async () => {
    const models = join(dir, "models");
    mkdirSync(models);
    const file = join(models, "cell-9.yaml");
    writeFileSync(file, BASE_MODEL.replace("    tags: [docker]", "    tags: [docker]\n    maximum_timeout: 3600").replace("18.5.0", "v19.6.0") + "    autoscaling:\n      policies:\n        - idle_time: 20min\n");
    const result = await runInProcess("prepare", ["--model", file, "--models-dir", models], { env: { ...process.env, PATH: "/usr/bin:/bin" } });
    expect(result.status).toBe(2);
    expect(result.stdout + result.stderr).toContain(
      [
        `${file}:13:22: shards[0].maximum_timeout: expected a string, received 3600 (a Go duration with its unit, such as "20m", "1h30m" or "90s"; write "1h": YAML reads the unquoted 3600 as a number)`,
        `${file}:16:23: shards[0].managers.runner_version: expected a pinned gitlab-runner version such as "19.5.0", received "v19.6.0" (did you mean "19.6.0"?)`,
        `${file}:22:22: shards[0].autoscaling.policies[0].idle_time: expected a Go duration such as "20m", "1h30m" or "90s", at most 2562047h (Go's maximum), received "20min" (did you mean "20m"?)`,
      ].join("\n  "),
    );
    expect(result.stdout + result.stderr).not.toMatch(STACK_TRACE_LINE);
  });
});
