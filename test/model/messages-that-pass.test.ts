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

describe("a region typo is one error, at the region", () => {
  const AWS_ZONES = "  provider: aws\n  region: eu-central-1\n  availability_zones: [eu-central-1a, eu-central-1b, eu-central-1c]";
  const aws = BASE_MODEL.replace("  provider: google\n  project: acme-runners-9\n  region: europe-west4\n  zones: [europe-west4-a]", AWS_ZONES)
    .replace("e2-standard-2", "t3.medium")
    .replace("n2d-standard-2", "m7i.large");

  it("fails when the region is eu-centrel-1 and the zones are eu-central-1's, once, with a did-you-mean", () => {
    expect(errorsOf(aws.replace("region: eu-central-1", "region: eu-centrel-1"))).toEqual([
      'cell-9.yaml:7:11: cloud.region: expected the AWS region that cloud.availability_zones are in (eu-central-1 holds eu-central-1a, eu-central-1b, eu-central-1c; eu-centrel-1 is not in the list of regions checked on 2026-11-22), received "eu-centrel-1" (did you mean "eu-central-1"?)',
    ]);
    expect(errorsOf(aws)).toEqual([]);
  });

  it("fails when a Google region is misspelt beside its zones, and warns alone when the zones carry the same typo", () => {
    expect(errorsOf(BASE_MODEL.replace("region: europe-west4", "region: europe-wset4"))).toEqual([
      'cell-9.yaml:8:11: cloud.region: expected the Google Cloud region that cloud.zones are in (europe-west4 holds europe-west4-a; europe-wset4 is not in the list of regions checked on 2026-11-22), received "europe-wset4" (did you mean "europe-west4"?)',
    ]);
    const both = parseModel(BASE_MODEL.replace("region: europe-west4\n  zones: [europe-west4-a]", "region: europe-wset4\n  zones: [europe-wset4-a]"), "cell-9.yaml");
    expect(both.warnings.map(formatIssue)).toContain(
      'cell-9.yaml:8:11: warning: cloud.region: expected a Google Cloud region (not in the list checked on 2026-11-22; did you mean "europe-west4"?), received "europe-wset4"',
    );
  });

  it("keeps one error per zone when the region is a real one and the zones another's", () => {
    expect(errorsOf(aws.replace("region: eu-central-1", "region: eu-west-1"))).toEqual([
      'cell-9.yaml:8:24: cloud.availability_zones[0]: expected a zone of region eu-west-1, such as eu-west-1a, received "eu-central-1a"',
      'cell-9.yaml:8:39: cloud.availability_zones[1]: expected a zone of region eu-west-1, such as eu-west-1a, received "eu-central-1b"',
      'cell-9.yaml:8:54: cloud.availability_zones[2]: expected a zone of region eu-west-1, such as eu-west-1a, received "eu-central-1c"',
    ]);
  });
});

describe("an unclosed [ is reported at the [", () => {
  it("fails when tags: [linux, docker has no ], naming the [ and its line, not the next line's indentation", () => {
    expect(errorsOf(withLine(12, "    tags: [linux, docker"))).toEqual([
      'cell-9.yaml:12:11: shards[0].tags: expected valid YAML: a closing ] for the list that opens with "[" here, on line 12, received no ] before line 13',
    ]);
  });

  it("fails when a { is not closed, and when the list runs over lines first", () => {
    expect(errorsOf(withLine(12, "    tags: [docker]\n    labels: {team: ci"))).toEqual([
      expect.stringMatching(/^cell-9\.yaml:13:13: shards\[0\]\.labels: expected valid YAML: a closing \} for the mapping that opens with "\{" here, on line 13, received no \} before line 14/),
    ]);
    expect(errorsOf(withLine(12, "    tags: [linux,\n      docker\n    run_untagged: true"))).toEqual([
      'cell-9.yaml:12:11: shards[0].tags: expected valid YAML: a closing ] for the list that opens with "[" here, on line 12, received no ] before line 14; 2 later syntax error(s) not shown, often caused by this one',
    ]);
  });
});
