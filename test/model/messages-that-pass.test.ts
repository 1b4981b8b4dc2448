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

describe("warnings users would want", () => {
  const AWS_SPOT = BASE_MODEL.replace("  provider: google\n  project: acme-runners-9\n  region: europe-west4\n  zones: [europe-west4-a]", "  provider: aws\n  region: us-east-1\n  availability_zones: [us-east-1a]")
    .replace("e2-standard-2", "t3.medium")
    .replace("n2d-standard-2", "m7i.large")
    .replace("      max_instances: 10", "      max_instances: 10\n      spot: true");
  const withAlternatives = AWS_SPOT.replace("      spot: true", "      spot: true\n      alternative_machine_types: [m6i.large, m7a.large]\n      spot_jobs_retried: true");

  /** The warnings of a model as printed, without the base model's own (concurrent 20 above 10 slots). */
  function warningsOf(text: string): string[] {
    return parseModel(text, "cell-9.yaml").warnings.filter((issue) => issue.path.at(-1) !== "concurrent").map(formatIssue);
  }

  it("warns when two shards take untagged jobs, at the second, naming the first", () => {
    const second = "  - name: large\n    tags: [large]\n    run_untagged: true\n    managers:\n      machine_type: e2-standard-2\n      runner_version: 18.5.0\n    workers:\n      machine_type: n2d-standard-8\n      max_instances: 10\n";
    const text = withLine(12, "    tags: [docker]\n    run_untagged: true") + second;
    expect(warningsOf(text)).toEqual([
      "cell-9.yaml:22:19: warning: shards[1].run_untagged: expected run_untagged on one shard of the cell only (shards[0] small takes untagged jobs too; GitLab gives each untagged job to whichever of them asks first), received true",
    ]);
    expect(warningsOf(text.replace("    run_untagged: true\n    managers", "    managers"))).toEqual([]);
  });

  it("warns when spot workers have one instance type, with same-size types, and when no one said their jobs retry", () => {
    expect(warningsOf(AWS_SPOT)).toEqual([
      "cell-9.yaml:16:7: warning: shards[0].workers.alternative_machine_types: expected more instance types for spot workers, of machine_type's size (such as [m6i.large, m7a.large, m6a.large]): with m7i.large alone, one reclaimed capacity pool stops the shard, received none",
      "cell-9.yaml:18:13: warning: shards[0].workers.spot: expected spot workers with jobs that retry when their worker is reclaimed: add `retry: { when: [runner_system_failure] }` to the jobs that run here, then say so with workers.spot_jobs_retried: true (a job whose worker the cloud takes back fails as a runner system failure), received true",
    ]);
    expect(warningsOf(withAlternatives)).toEqual([]);
  });

  it("warns when spot jobs may run for hours, and not at 2h", () => {
    const long = withAlternatives.replace("    tags: [docker]", "    tags: [docker]\n    maximum_timeout: 3h");
    expect(warningsOf(long)).toEqual([
      'cell-9.yaml:12:22: warning: shards[0].maximum_timeout: expected at most 2h on spot workers (or spot: false for jobs of hours): the cloud can reclaim a spot worker at any time, with two minutes\' notice on AWS and 30 seconds on Google Cloud, and a job of hours is likelier to lose it and all its work, received "3h"',
    ]);
    expect(warningsOf(long.replace("maximum_timeout: 3h", "maximum_timeout: 2h"))).toEqual([]);
    expect(warningsOf(long.replace("      spot: true\n", "      spot: false\n").replace(/      alternative_machine_types: .*\n/, ""))).toEqual([]);
  });

  it("warns when an alternative machine type is of another size than machine_type", () => {
    expect(warningsOf(withAlternatives.replace("[m6i.large, m7a.large]", "[m6i.large, m7a.xlarge, c7i.large]"))).toEqual([
      'cell-9.yaml:19:46: warning: shards[0].workers.alternative_machine_types[1]: expected an instance type of machine_type\'s size (m7i.large: 2 vCPUs, 8 GiB): jobs and their limits are planned for it, so m7a.xlarge (4 vCPUs, 16 GiB) pays for room no job uses, received "m7a.xlarge"',
      'cell-9.yaml:19:58: warning: shards[0].workers.alternative_machine_types[2]: expected an instance type of machine_type\'s size (m7i.large: 2 vCPUs, 8 GiB): jobs and their limits are planned for it, so c7i.large (2 vCPUs, 4 GiB) gives a job less than planned, received "c7i.large"',
    ]);
  });

  it("prints them with prepare, exit 0", async () => {
    const dir = mkdtempSync(join(tmpdir(), "spot-warnings-"));
    try {
      const file = join(dir, "cell-9.yaml");
      writeFileSync(file, AWS_SPOT);
      const result = await runInProcess("prepare", ["--model", file, "--models-dir", dir], { env: { ...process.env, PATH: "/usr/bin:/bin" } });
      expect(result.status).toBe(0);
      expect(result.stdout).toContain(`${file}:16:7: warning: shards[0].workers.alternative_machine_types: expected more instance types for spot workers`);
      expect(result.stdout).toContain(`${file}:18:13: warning: shards[0].workers.spot: expected spot workers with jobs that retry`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
