/**
 * The classes of mistakes a well-formed model can still hold (issue 23): each has an accepted
 * and a refused or warned example, with the message checked.
 */
import { parseModel } from "../../lib/model/load";
import { formatIssue, type ModelIssue } from "../../lib/model/issues";
import { BASE_MODEL, withLine } from "./invalid-cases";

/** The base with concurrent matching its 10 worker slots, so its own capacity warning is gone. */
const BASE = BASE_MODEL.replace("      runner_version: 18.5.0", "      runner_version: 18.5.0\n      concurrent: 10");

const AWS_BASE = BASE.replace(
  "  provider: google\n  project: acme-runners-9\n  region: europe-west4\n  zones: [europe-west4-a]",
  "  provider: aws\n  region: eu-west-1\n  availability_zones: [eu-west-1a, eu-west-1b]",
).replace("e2-standard-2", "t3.medium").replace("n2d-standard-2", "m7i.large");

function messagesOf(text: string): { errors: string[]; warnings: string[] } {
  try {
    const loaded = parseModel(text, "cell-9.yaml");
    // network.nat's own advice (one NAT gateway for several zones) is another check's, not these cases'.
    const warnings = loaded.warnings.filter((issue) => issue.severity === "warning" && issue.path.join(".") !== "network.nat");
    return { errors: [], warnings: warnings.map(formatIssue) };
  } catch (error) {
    const issues = (error as { issues?: ModelIssue[] }).issues;
    if (!issues) throw error;
    return { errors: issues.map(formatIssue), warnings: [] };
  }
}

const append = (text: string, extra: string) => `${text}${extra}\n`;

it("the base models are clean, so each finding below is the case's own", () => {
  expect(messagesOf(BASE)).toEqual({ errors: [], warnings: [] });
  expect(messagesOf(AWS_BASE)).toEqual({ errors: [], warnings: [] });
});

describe("capacity that silently throttles", () => {
  it("warns when concurrent is below max_instances x capacity_per_instance, with the effective capacity", () => {
    const { warnings } = messagesOf(BASE.replace("concurrent: 10", "concurrent: 4\n      count: 2").replace("max_instances: 10", "max_instances: 10\n      capacity_per_instance: 2\n      max_use_count: 0"));
    expect(warnings).toEqual([
      expect.stringContaining("shards[0].managers.concurrent: expected concurrent >= workers.max_instances x capacity_per_instance = 10 x 2 = 20: each manager runs at most 4 jobs at once, so its workers beyond 2 instance(s) are never used (effective capacity 4 jobs per manager, 8 for the shard's 2 manager(s), not 40), received 4"),
    ]);
  });

  it("warns about a scale_factor_limit above the slots, and about many idle slots with max_use_count 1", () => {
    const { warnings } = messagesOf(append(BASE, "    autoscaling:\n      policies:\n        - idle_count: 8\n          scale_factor: 1\n          scale_factor_limit: 50"));
    expect(warnings.join("\n")).toContain("scale_factor_limit: expected at most 10 (max_instances x capacity_per_instance): idle capacity above the slots cannot exist, so the effective limit is 10, received 50");
    expect(warnings.join("\n")).toContain("idle_count: expected at most half the slots (5) kept idle when workers.max_use_count is 1: every job retires its instance, so each idle slot is a fresh boot paid per job (8 of 10 slots idle)");
  });

  it("fails when max_use_count is below capacity_per_instance: an instance runs at most its uses, whatever its capacity", () => {
    // Runner docs, [runners.autoscaler] max_use_count: "The maximum number of times an instance can be used
    // before it is scheduled for removal": with 1 use, an instance of capacity 2 runs one job.
    const { errors } = messagesOf(BASE.replace("max_instances: 10", "max_instances: 10\n      capacity_per_instance: 2\n      max_use_count: 1"));
    expect(errors).toEqual([
      expect.stringContaining(
        "shards[0].workers.capacity_per_instance: expected at most workers.max_use_count (1): an instance runs at most max_use_count jobs before it is removed, so with capacity_per_instance 2 it still runs 1 at a time and 10 instances run 10 jobs, not 20; set capacity_per_instance: 1 (or raise max_use_count to 2 or more), received 2",
      ),
    ]);
    expect(messagesOf(BASE.replace("max_instances: 10", "max_instances: 10\n      capacity_per_instance: 2\n      max_use_count: 2")).errors).toEqual([]);
  });

  it("accepts idle slots that instances are reused for", () => {
    const reused = append(BASE.replace("max_instances: 10", "max_instances: 10\n      max_use_count: 20"), "    autoscaling:\n      policies:\n        - idle_count: 8");
    expect(messagesOf(reused).warnings).toEqual([]);
  });
});

describe("addresses", () => {
  it("warns about a public network range, and accepts RFC 1918 and RFC 6598 ranges", () => {
    expect(messagesOf(append(BASE, "network:\n  cidr: 8.8.0.0/16")).warnings).toEqual([expect.stringContaining("network.cidr: expected a private range (RFC 1918")]);
    expect(messagesOf(append(BASE, "network:\n  cidr: 100.64.0.0/16")).warnings).toEqual([]);
    expect(messagesOf(append(BASE, "network:\n  cidr: 172.20.0.0/16")).warnings).toEqual([]);
  });

  it("refuses a Google range too small for managers and workers, saying how many addresses are needed", () => {
    // 2 managers x (1 + 10 workers) = 22 addresses; a /28 holds 16 - 4 = 12.
    const { errors } = messagesOf(append(BASE.replace("concurrent: 10", "concurrent: 10\n      count: 2"), "network:\n  cidr: 10.1.0.0/28"));
    expect(errors).toEqual([expect.stringContaining("network.cidr: expected a range with room for 22 addresses (each shard's managers.count x (1 manager + workers.max_instances)); a /28 holds 12 usable addresses (Google Cloud reserves 4), received \"10.1.0.0/28\"")]);
    expect(messagesOf(append(BASE.replace("concurrent: 10", "concurrent: 10\n      count: 2"), "network:\n  cidr: 10.1.0.0/27")).errors).toEqual([]);
  });

  it("refuses an AWS range whose private subnets cannot hold the workers", () => {
    // 2 managers x (1 + 200) = 402; a /24 over 2 zones gives 2 private /26 subnets of 59 addresses.
    const big = AWS_BASE.replace("max_instances: 10", "max_instances: 200").replace("concurrent: 10", "concurrent: 200");
    const { errors } = messagesOf(append(big, "network:\n  cidr: 10.1.0.0/24"));
    expect(errors).toEqual([expect.stringContaining("room for 402 addresses (each shard's managers.count x (1 manager + workers.max_instances)); a /24 for 2 zone(s) gives 2 private /26 subnet(s) of 59 usable addresses each (AWS reserves 5 per subnet), 118 in all")]);
    expect(messagesOf(append(big, "network:\n  cidr: 10.1.0.0/20")).errors).toEqual([]);
  });

  it("refuses a monitoring range listed twice", () => {
    const { errors } = messagesOf(append(BASE, "network:\n  monitoring_cidrs: [10.2.0.0/24, 10.2.0.0/24]"));
    expect(errors).toEqual([expect.stringContaining("network.monitoring_cidrs[1]: expected each range once (monitoring_cidrs[0] has it already)")]);
  });
});

describe("URLs", () => {
  it.each([
    ["a query", "https://gitlab.example.com/?x=1", "without a query or fragment"],
    ["a fragment", "https://gitlab.example.com/#top", "without a query or fragment"],
    ["the API path", "https://gitlab.example.com/api/v4", "not its API (the toolkit and gitlab-runner add /api/v4 themselves), such as https://gitlab.example.com"],
    ["the API path under a relative root", "https://example.com/gitlab/api/v4/", "such as https://example.com/gitlab"],
  ])("refuses gitlab.url with %s", (_name, url, expected) => {
    const { errors } = messagesOf(withLine(4, `  url: ${url}`));
    expect(errors).toEqual([expect.stringContaining(`cell-9.yaml:4:8: gitlab.url: expected the instance's root URL`)]);
    expect(errors[0]).toContain(expected);
  });

  it("accepts a relative URL root", () => {
    expect(messagesOf(BASE.replace("url: https://gitlab.example.com", "url: https://example.com/gitlab")).errors).toEqual([]);
  });
});

describe("settings that weaken isolation", () => {
  it("warns about the Docker socket, host paths and privileged reuse, naming the risk", () => {
    const risky = append(BASE.replace("max_instances: 10", "max_instances: 10\n      max_use_count: 0"), "    docker:\n      privileged: true\n      volumes: [/cache, /var/run/docker.sock:/var/run/docker.sock, /srv/data:/data]");
    const warnings = messagesOf(risky).warnings.join("\n");
    expect(warnings).toContain("shards[0].docker.volumes[1]: expected no Docker socket mounted into jobs (security: a job then controls the worker's Docker daemon");
    expect(warnings).toContain("shards[0].docker.volumes[2]: expected volumes inside the job's container, such as /cache (security: a host path");
    expect(warnings).toContain("shards[0].docker.privileged: expected workers.max_use_count: 1 with privileged jobs (security: a privileged job can change its instance, and with max_use_count 0 (unlimited)");
  });

  it("accepts privileged jobs on single-use workers and volumes inside the container", () => {
    expect(messagesOf(append(BASE, "    docker:\n      privileged: true\n      volumes: [/cache, /builds-extra]")).warnings).toEqual([]);
  });

  it("fails when privileged jobs share a worker (capacity_per_instance 2) and the model has not opted in", () => {
    // max_use_count at least capacity_per_instance, as the capacity checks require.
    const shared = BASE.replace("max_instances: 10", "max_instances: 5\n      capacity_per_instance: 2\n      max_use_count: 2");
    const { errors } = messagesOf(append(shared, "    docker:\n      privileged: true"));
    expect(errors).toEqual([
      expect.stringMatching(/^cell-9\.yaml:\d+:\d+: shards\[0\]\.docker\.privileged: expected workers\.capacity_per_instance: 1 with privileged jobs, or docker\.privileged_shares_worker: true to accept it \(security: with 2 jobs at once on one privileged Docker host, .*job tokens and artifacts\), received true$/),
    ]);
  });

  it("accepts privileged jobs sharing a worker when the model names its opt-in, docker.privileged_shares_worker", () => {
    const shared = BASE.replace("max_instances: 10", "max_instances: 5\n      capacity_per_instance: 2\n      max_use_count: 2");
    // Only the warning about reuse stays: the next job runs on what a privileged one left.
    expect(messagesOf(append(shared, "    docker:\n      privileged: true\n      privileged_shares_worker: true"))).toEqual({
      errors: [],
      warnings: [expect.stringContaining("shards[0].docker.privileged: expected workers.max_use_count: 1 with privileged jobs")],
    });
  });

  it("warns when a reused worker may serve a cached image (if-not-present or never), naming the risk", () => {
    const reused = BASE.replace("max_instances: 10", "max_instances: 10\n      max_use_count: 5");
    expect(messagesOf(reused).warnings).toEqual([]);
    const { warnings } = messagesOf(append(reused, "    docker:\n      pull_policy: [always, if-not-present]"));
    expect(warnings).toEqual([
      expect.stringContaining("shards[0].docker.pull_policy: expected [always] where a worker's image cache serves more than one job (security: with if-not-present, gitlab-runner uses a cached image after any failed pull, an authentication failure included"),
    ]);
    expect(warnings[0]).toMatch(/received \["always","if-not-present"\]$/);
  });

  it("accepts if-not-present on single-use, single-job workers (their cache holds only their own pulls)", () => {
    expect(messagesOf(append(BASE, "    docker:\n      pull_policy: [if-not-present]")).warnings).toEqual([]);
  });
});

describe("who may reach the managers' metrics listener", () => {
  it("fails when a monitoring range includes the workers' own network, naming /debug/pprof", () => {
    const { errors } = messagesOf(append(BASE, "network:\n  cidr: 10.20.0.0/20\n  monitoring_cidrs: [10.8.0.0/16, 10.20.4.0/24, 10.0.0.0/8]"));
    expect(errors).toHaveLength(2);
    expect(errors[0]).toMatch(/network\.monitoring_cidrs\[1\]: expected a range outside network\.cidr 10\.20\.0\.0\/20, .*job code on them would reach gitlab-runner's \/debug\/pprof and \/debug\/jobs\/list on the managers' :9252\), received "10\.20\.4\.0\/24"$/);
    expect(errors[1]).toMatch(/network\.monitoring_cidrs\[2\]: .*received "10\.0\.0\.0\/8"$/);
  });

  it("accepts a monitoring range of its own, outside the cell's network", () => {
    expect(messagesOf(append(BASE, "network:\n  cidr: 10.20.0.0/20\n  monitoring_cidrs: [10.8.0.0/16, 10.20.16.0/24]"))).toEqual({ errors: [], warnings: [] });
  });
});

describe("duplicates", () => {
  it("warns about two policies with the same periods, and not about different ones", () => {
    // A leading catch-all, so the check that asks for one stays quiet.
    const twice = append(BASE, '    autoscaling:\n      policies:\n        - periods: ["* * * * *"]\n        - periods: ["* 8-18 * * mon-fri"]\n          idle_count: 2\n        - periods: ["* 8-18 * * mon-fri"]\n          idle_count: 3');
    expect(messagesOf(twice).warnings).toEqual([expect.stringContaining("policies[2].periods: expected periods of their own: policies[1] has the same periods in the same time zone")]);
    expect(messagesOf(twice.replace('["* 8-18 * * mon-fri"]\n          idle_count: 3', '["* 19-23 * * mon-fri"]\n          idle_count: 3')).warnings).toEqual([]);
  });
});

describe("versions that cannot work", () => {
  it("refuses a gitlab-runner older than 16.11 (no `gitlab-runner fleeting install`) and accepts 16.11.0", () => {
    expect(messagesOf(BASE.replace("runner_version: 18.5.0", "runner_version: 16.10.1")).errors).toEqual([
      expect.stringContaining('shards[0].managers.runner_version: expected gitlab-runner 16.11.0 or later: the managers install the fleeting plugin with `gitlab-runner fleeting install`, which GitLab Runner 16.11 introduced, received "16.10.1"'),
    ]);
    expect(messagesOf(BASE.replace("runner_version: 18.5.0", "runner_version: 16.11.0")).errors).toEqual([]);
  });

  it("fails when a policy sets preemptive_mode for a runner older than 18.1, which ignores the key", () => {
    // v18.0.0's common/config.go AutoscalerPolicyConfig has no PreemptiveMode; v18.1.0's has it (merge request 5565).
    const preemptive = append(BASE, "    autoscaling:\n      policies:\n        - idle_count: 0\n          preemptive_mode: true");
    expect(messagesOf(preemptive.replace("runner_version: 18.5.0", "runner_version: 18.0.2")).errors).toEqual([
      expect.stringContaining('shards[0].autoscaling.policies[0].preemptive_mode: expected managers.runner_version 18.1.0 or later (gitlab-runner 18.1 added preemptive_mode; 18.0.2 ignores it), or no preemptive_mode, received true'),
    ]);
    expect(messagesOf(preemptive.replace("runner_version: 18.5.0", "runner_version: 18.1.0")).errors).toEqual([]);
  });
});

describe("machine types that do not exist", () => {
  it.each([
    ["a Google type with a misspelt class", BASE.replace("n2d-standard-2", "n2d-standrad-2"), "shards[0].workers.machine_type", '"n2d-standrad-2"'],
    ["a Google shared-core type that does not exist", BASE.replace("e2-standard-2", "e2-large"), "shards[0].managers.machine_type", '"e2-large"'],
    ["an EC2 size that does not exist", AWS_BASE.replace("m7i.large", "m7i.lage"), "shards[0].workers.machine_type", '"m7i.lage"'],
    ["an EC2 family that does not exist", AWS_BASE.replace("t3.medium", "t9.medium"), "shards[0].managers.machine_type", '"t9.medium"'],
  ])("refuses %s, naming the dated list and the escape", (_name, text, path, received) => {
    const { errors } = messagesOf(text);
    expect(errors).toEqual([expect.stringContaining(`${path}: expected one of the `)]);
    expect(errors[0]).toContain("that exist");
    expect(errors[0]).toContain("(data/machine-types.json, checked on ");
    expect(errors[0]).toContain("set allow_unknown_machine_type: true on the shard");
    expect(errors[0]).toContain(`received ${received}`);
  });

  // Sizes of families that exist, missing from the series' tables (Google's series pages; the EC2
  // API's InstanceType enum): refused with the family's sizes just below and above, or the type a typo meant.
  it.each([
    ["google", "n2d-standard-3", "the series n2d has no such size", "did you mean n2d-standard-2 or n2d-standard-4?"],
    ["google", "n2d-standard-6", "the series n2d has no such size", "did you mean n2d-standard-4 or n2d-standard-8?"],
    ["google", "e2-standard-5", "the series e2 has no such size", "did you mean e2-standard-4 or e2-standard-8?"],
    ["google", "c3d-standard-17", "the series c3d has no such size", "did you mean c3d-standard-16 or c3d-standard-30?"],
    ["google", "n2d-standrad-2", "the series n2d has no such size", "did you mean n2d-standard-2?"],
    ["aws", "c7i.5xlarge", "the family c7i has no such size", "did you mean c7i.4xlarge or c7i.8xlarge?"],
    ["aws", "m7i.larg", "the family m7i has no such size", "did you mean m7i.large?"],
    ["aws", "m7x.large", "no family m7x on the list", "did you mean m7a.large?"],
  ])("fails on the %s type %s, with a did-you-mean", (cloud, type, what, suggestion) => {
    const text = cloud === "google" ? BASE.replace("n2d-standard-2", type) : AWS_BASE.replace("m7i.large", type);
    const { errors } = messagesOf(text);
    expect(errors).toEqual([expect.stringContaining(`shards[0].workers.machine_type: expected one of the `)]);
    expect(errors[0]).toContain(`that exist: ${what} (data/machine-types.json, checked on `);
    expect(errors[0]).toContain(`; ${suggestion}; for a type newer than the list, set allow_unknown_machine_type: true on the shard, received "${type}"`);
  });

  it("accepts listed types of both clouds, custom Google types, and an unknown one when the shard allows it (as a warning)", () => {
    for (const type of ["c4a-standard-4", "n2-custom-4-8192", "a3-highgpu-8g", "c3-standard-4-lssd", "e2-micro"]) {
      expect([type, messagesOf(BASE.replace("e2-standard-2", type).replace("n2d-standard-2", type)).errors]).toEqual([type, []]);
    }
    for (const type of ["m7i-flex.large", "c7gn.16xlarge", "t4g.nano", "m7i.metal-24xl"]) {
      expect([type, messagesOf(AWS_BASE.replace("t3.medium", type).replace("m7i.large", type)).errors]).toEqual([type, []]);
    }
    const allowed = messagesOf(AWS_BASE.replace("m7i.large", "m9z.large").replace("  - name: small", "  - name: small\n    allow_unknown_machine_type: true"));
    expect(allowed.errors).toEqual([]);
    expect(allowed.warnings).toEqual([expect.stringContaining("shards[0].workers.machine_type: expected one of the EC2 instance types that exist: no family m9z on the list (data/machine-types.json, checked on ")]);
    expect(allowed.warnings[0]).toContain("accepted because allow_unknown_machine_type is true");
    const newerSize = messagesOf(BASE.replace("n2d-standard-2", "n2d-standard-6").replace("  - name: small", "  - name: small\n    allow_unknown_machine_type: true"));
    expect(newerSize.errors).toEqual([]);
    expect(newerSize.warnings).toEqual([expect.stringContaining("the series n2d has no such size")]);
  });
});

describe("the same tag twice in a shard", () => {
  it("warns, naming the tag, in a list and in one comma-separated string, and not for distinct tags", () => {
    expect(messagesOf(BASE.replace("tags: [docker]", "tags: [docker, linux, docker]")).warnings).toEqual([
      expect.stringContaining('cell-9.yaml:12:11: warning: shards[0].tags: expected each tag once ("docker" twice; GitLab keeps one'),
    ]);
    expect(messagesOf(BASE.replace("tags: [docker]", 'tags: "docker, docker"')).warnings).toEqual([expect.stringContaining('("docker" twice')]);
    expect(messagesOf(BASE.replace("tags: [docker]", "tags: [docker, linux]")).warnings).toEqual([]);
  });
});

describe("durations within GitLab's bounds", () => {
  it("warns about a maximum_timeout of a month or more, and accepts one below", () => {
    expect(messagesOf(BASE.replace("tags: [docker]", "tags: [docker]\n    maximum_timeout: 800h")).warnings).toEqual([
      expect.stringContaining('shards[0].maximum_timeout: expected less than a month (730h): GitLab caps every project\'s job timeout below one month'),
    ]);
    expect(messagesOf(BASE.replace("tags: [docker]", "tags: [docker]\n    maximum_timeout: 720h")).warnings).toEqual([]);
  });
});

describe("worker group names that another shard's IAM condition would cover (Google Cloud)", () => {
  it("fails when a shard's name holds -wrk-<n>, which puts its workers under another shard's instance prefix", () => {
    const { errors } = messagesOf(BASE.replace("- name: small", "- name: small-wrk-0-x"));
    expect(errors).toEqual([
      expect.stringMatching(/shards\[0\]\.name: expected a shard name that, after the cell id, holds no "-wrk-0" part, such as "small-x" \(security: "cell-9-small-wrk-0-x-wrk-0" would name instances that start with "cell-9-small-wrk-0-", .*could set metadata on this shard's workers\), received "small-wrk-0-x"$/),
    ]);
  });

  it("accepts names that only resemble it (wrk without a slot number, or not as a part)", () => {
    expect(messagesOf(BASE.replace("- name: small", "- name: small-wrk-a")).errors).toEqual([]);
    expect(messagesOf(BASE.replace("- name: small", "- name: smallwrk-0")).errors).toEqual([]);
  });

  it("leaves AWS alone: its managers' permissions name their groups exactly", () => {
    expect(messagesOf(AWS_BASE.replace("- name: small", "- name: small-wrk-0-x")).errors).toEqual([]);
  });
});
