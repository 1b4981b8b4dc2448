import { parse } from "smol-toml";
import { formatGoDuration, parseGoDurationSeconds } from "../../lib/model/duration";
import { RUNNER_METRICS_PORT } from "../../lib/contract/fleet-contract";
import {
  cacheBucketName,
  runnerEntryName,
  workerGroupName,
  zoneOfSlot,
} from "../../lib/model/names";
import type { RunnerModel, Shard } from "../../lib/model/schema";
import { renderConfigTomlForSlots, WORKER_READY_FILE } from "../../lib/render/config-toml";
import { renderConfigToml, RUNNER_TOKEN_PLACEHOLDER } from "../../lib/render/manager-files";
import { exampleModel, modelWith } from "../support/models";
import { loadKnownRunnerConfigKeys, tomlKeyPaths, unknownKeyPaths } from "./support/runner-config-keys";

type Toml = Record<string, any>;

const parseConfig = (model: RunnerModel, shard: Shard, slot: number): Toml => parse(renderConfigToml(model, shard, slot)) as Toml;

/** Every (model, shard, slot) of both example models. */
const slotsOfExamples = (["cell-1", "cell-2"] as const).flatMap((name) => {
  const model = exampleModel(name);
  return model.shards.flatMap((shard) =>
    Array.from({ length: shard.managers.count }, (_, slot) => ({ label: `${name}/${shard.name}/manager-${slot}`, model, shard, slot })),
  );
});

describe("renderConfigToml", () => {
  it.each(slotsOfExamples)("renders top-level settings from the model for $label", ({ model, shard, slot }) => {
    const config = parseConfig(model, shard, slot);

    expect(config.concurrent).toBe(shard.managers.concurrent);
    // Google: the autohealing health check probes over the network; cell-2 (AWS) names no monitoring range: loopback.
    expect(config.listen_address).toBe(model.cloud.provider === "google" ? `:${RUNNER_METRICS_PORT}` : `127.0.0.1:${RUNNER_METRICS_PORT}`);
    expect(config.log_format).toBe("json");
    expect(typeof config.check_interval).toBe("number");
    expect(typeof config.shutdown_timeout).toBe("number");
    expect(typeof config.log_level).toBe("string");
  });

  it.each(slotsOfExamples)("gives $label exactly one [[runners]] entry that drives its own worker group", ({ model, shard, slot }) => {
    const { runners } = parseConfig(model, shard, slot);

    expect(runners).toHaveLength(1);
    const [runner] = runners;
    expect(runner.name).toBe(runnerEntryName(model, shard, slot));
    expect(runner.url).toBe(model.gitlab.url);
    expect(runner.token).toBe(RUNNER_TOKEN_PLACEHOLDER);
    expect(runner.executor).toBe("docker-autoscaler");
    expect(runner.limit).toBe(shard.workers.max_instances * shard.workers.capacity_per_instance);
    expect(runner.autoscaler.plugin_config.name).toBe(workerGroupName(model, shard, slot));
    expect(runner.autoscaler.capacity_per_instance).toBe(shard.workers.capacity_per_instance);
    expect(runner.autoscaler.max_use_count).toBe(shard.workers.max_use_count);
    expect(runner.autoscaler.max_instances).toBe(shard.workers.max_instances);
    expect(runner.autoscaler.connector_config).toEqual({
      os: "linux",
      // The examples' workers (n2d, m7i) are amd64.
      arch: "amd64",
      protocol: "ssh",
      username: shard.workers.username,
      key_path: "/etc/gitlab-runner/fleeting/id_ed25519",
      use_external_addr: false,
    });
    expect(runner.autoscaler.instance_ready_command).toContain(WORKER_READY_FILE);
  });

  it("waits for a worker's boot well below the time a job waits for a worker, both set explicitly", () => {
    const model = exampleModel("cell-1");
    const { autoscaler } = parseConfig(model, model.shards[0], 0).runners[0];

    const readyWait = Number(/^timeout (\d+) /.exec(autoscaler.instance_ready_command)?.[1]);
    const acquire = parseGoDurationSeconds(autoscaler.instance_acquire_timeout) ?? 0;

    expect(readyWait).toBe(480);
    expect(acquire).toBe(1200);
    // Room for a replacement worker to be created and boot after the first is given up.
    expect(acquire - readyWait).toBeGreaterThanOrEqual(600);
  });

  it("points each Google Cloud slot at its group's project and zone, spreading slots over the zones", () => {
    const model = exampleModel("cell-1");
    if (model.cloud.provider !== "google") throw new Error("cell-1 is the Google Cloud example");
    const shard = model.shards[0];

    const pluginConfigs = [0, 1].map((slot) => parseConfig(model, shard, slot).runners[0].autoscaler.plugin_config);

    expect(pluginConfigs[0]).toEqual({ name: workerGroupName(model, shard, 0), project: model.cloud.project, zone: zoneOfSlot(model.cloud.zones, 0) });
    expect(pluginConfigs[1]).toEqual({ name: workerGroupName(model, shard, 1), project: model.cloud.project, zone: zoneOfSlot(model.cloud.zones, 1) });
    expect(pluginConfigs[0].zone).toBe("europe-west4-a");
    expect(pluginConfigs[1].zone).toBe("europe-west4-b");
    expect(pluginConfigs[0].name).not.toBe(pluginConfigs[1].name);
    expect(parseConfig(model, shard, 0).runners[0].autoscaler.plugin).toMatch(/^googlecloud(:|$)/);
  });

  it("names the Auto Scaling group and its region on AWS", () => {
    const model = exampleModel("cell-2");
    const shard = model.shards[0];

    const { autoscaler } = parseConfig(model, shard, 1).runners[0];

    expect(autoscaler.plugin_config).toEqual({ name: workerGroupName(model, shard, 1), region: "eu-west-1" });
    expect(autoscaler.plugin).toMatch(/^aws(:|$)/);
  });

  it.each([
    [1, 1],
    [5, 1],
    [20, 2],
    [60, 6],
    [80, 8],
    [1000, 10],
  ])("keeps request_concurrency in step with concurrent = %i (%i requests in flight, never more than concurrent)", (concurrent, expected) => {
    const model = modelWith("cell-2", (draft) => {
      draft.shards[0].managers.concurrent = concurrent;
    });
    const config = parseConfig(model, model.shards[0], 0);
    expect(config.concurrent).toBe(concurrent);
    expect(config.runners[0].request_concurrency).toBe(expected);
    expect(config.runners[0].request_concurrency).toBeLessThanOrEqual(config.concurrent);
  });

  it("gives the example managers more than the default single job request", () => {
    for (const name of ["cell-1", "cell-2"] as const) {
      const model = exampleModel(name);
      for (const shard of model.shards) expect(parseConfig(model, shard, 0).runners[0].request_concurrency).toBeGreaterThan(1);
    }
  });

  it("uses a GCS cache on the shard's bucket with no credentials on Google Cloud", () => {
    const model = exampleModel("cell-1");
    const shard = model.shards[0];

    const { cache } = parseConfig(model, shard, 0).runners[0];

    expect(cache).toEqual({ Type: "gcs", Shared: shard.cache.shared, gcs: { BucketName: cacheBucketName(model, shard) } });
  });

  it("uses an S3 cache with IAM authentication in the model's region on AWS", () => {
    const model = exampleModel("cell-2");
    const shard = model.shards[0];

    const { cache } = parseConfig(model, shard, 0).runners[0];

    expect(cache.Type).toBe("s3");
    expect(cache.Shared).toBe(true);
    expect(cache.s3).toEqual({
      ServerAddress: "s3.amazonaws.com",
      BucketName: cacheBucketName(model, shard),
      BucketLocation: "eu-west-1",
      AuthenticationType: "iam",
    });
  });

  it("renders no [runners.cache] when the shard's cache is disabled", () => {
    const model = modelWith("cell-2", (m) => {
      m.shards[0].cache.enabled = false;
    });

    const text = renderConfigToml(model, model.shards[0], 0);

    expect(text).not.toContain("[runners.cache");
    expect((parse(text) as Toml).runners[0]).not.toHaveProperty("cache");
  });

  it("passes Shared = false through when the model does not share the cache", () => {
    const model = modelWith("cell-1", (m) => {
      m.shards[1].cache.shared = false;
    });

    expect(parseConfig(model, model.shards[1], 0).runners[0].cache.Shared).toBe(false);
  });

  it.each(slotsOfExamples)("renders the policies of $label in model order with Go durations", ({ model, shard, slot }) => {
    const { policy } = parseConfig(model, shard, slot).runners[0].autoscaler;

    expect(policy).toHaveLength(shard.autoscaling.policies.length);
    shard.autoscaling.policies.forEach((expected, index) => {
      expect(policy[index].periods).toEqual(expected.periods);
      expect(policy[index].timezone).toBe(expected.timezone);
      expect(policy[index].idle_count).toBe(expected.idle_count);
      expect(policy[index].idle_time).toBe(formatGoDuration(parseGoDurationSeconds(expected.idle_time) ?? Number.NaN));
      expect(policy[index].scale_factor).toBe(expected.scale_factor);
      if (expected.scale_factor_limit === undefined) expect(policy[index]).not.toHaveProperty("scale_factor_limit");
      else expect(policy[index].scale_factor_limit).toBe(expected.scale_factor_limit);
    });
  });

  it("puts a catch-all policy first when the model's policies leave hours uncovered, keeping idle workers for reuse", () => {
    const model = modelWith("cell-1", (m) => {
      m.shards[1].autoscaling.policies = [{ periods: ["* 7-19 * * mon-fri"], timezone: "Europe/Amsterdam", idle_count: 4, idle_time: "45m", scale_factor: 0 }];
    });

    const { policy } = parseConfig(model, model.shards[1], 0).runners[0].autoscaler;

    expect(policy).toHaveLength(2);
    expect(policy[0]).toEqual({ periods: ["* * * * *"], timezone: "UTC", idle_count: 0, idle_time: "45m0s", scale_factor: 0 });
    expect(policy[1]).toMatchObject({ periods: ["* 7-19 * * mon-fri"], idle_count: 4 });
  });

  it("writes preemptive_mode where a policy sets it, and leaves gitlab-runner's default (idle_count > 0) where it does not", () => {
    const model = modelWith("cell-1", (m) => {
      m.shards[1].autoscaling.policies = [
        { periods: ["* * * * *"], timezone: "UTC", idle_count: 0, idle_time: "30m", scale_factor: 1, preemptive_mode: true },
        { periods: ["* 7-19 * * mon-fri"], timezone: "Europe/Amsterdam", idle_count: 4, idle_time: "30m", scale_factor: 0, preemptive_mode: false },
        { periods: ["* 12 * * mon-fri"], timezone: "Europe/Amsterdam", idle_count: 2, idle_time: "30m", scale_factor: 0 },
      ];
    });

    const { policy } = parseConfig(model, model.shards[1], 0).runners[0].autoscaler;

    expect(policy.map((p: Toml) => p.preemptive_mode)).toEqual([true, false, undefined]);
    // common/config.go: PreemptiveMode is a *bool, so false is written out rather than left to the idle_count default.
    expect(renderConfigToml(model, model.shards[1], 0)).toMatch(/^\s*preemptive_mode = false$/m);
    expect(unknownKeyPaths(parseConfig(model, model.shards[1], 0), loadKnownRunnerConfigKeys())).toEqual([]);
  });

  it("adds no catch-all when a policy already covers every hour, however it is written", () => {
    const model = modelWith("cell-1", (m) => {
      m.shards[1].autoscaling.policies = [
        { periods: ["* 7-19 * * mon-fri"], timezone: "UTC", idle_count: 4, idle_time: "30m", scale_factor: 0 },
        { periods: ["0-59 0-23 * * *"], timezone: "Europe/Amsterdam", idle_count: 1, idle_time: "20m", scale_factor: 0 },
      ];
    });

    expect(parseConfig(model, model.shards[1], 0).runners[0].autoscaler.policy).toHaveLength(2);
  });

  it("writes idle_time as gitlab-runner prints Go durations (20m -> 20m0s)", () => {
    const model = exampleModel("cell-1");

    const { policy } = parseConfig(model, model.shards[0], 0).runners[0].autoscaler;

    expect(policy.map((p: Toml) => p.idle_time)).toEqual(["20m0s", "30m0s"]);
    expect(policy.map((p: Toml) => p.scale_factor_limit)).toEqual([undefined, 20]);
  });

  it("writes scale_factor as a TOML float even when it is whole, for Go's float64", () => {
    const model = exampleModel("cell-2");

    const text = renderConfigToml(model, model.shards[0], 0);

    expect(text).toMatch(/^\s*scale_factor = 0\.0$/m);
    expect(text).toMatch(/^\s*scale_factor = 0\.1$/m);
  });

  it("binds the AWS listener to the network only when monitoring_cidrs asks for scraping", () => {
    const scraped = modelWith("cell-2", (m) => void (m.network.monitoring_cidrs = ["10.8.0.0/16"]));
    expect(parseConfig(scraped, scraped.shards[0], 0).listen_address).toBe(":9252");
    const quiet = exampleModel("cell-2");
    expect(quiet.network.monitoring_cidrs).toEqual([]);
    expect(parseConfig(quiet, quiet.shards[0], 0).listen_address).toBe("127.0.0.1:9252");
  });

  it("keeps job containers unprivileged unless the model asks", () => {
    const model = exampleModel("cell-1");
    const privileged = modelWith("cell-1", (m) => {
      m.shards[0].docker.privileged = true;
    });

    expect(parseConfig(model, model.shards[0], 0).runners[0].docker.privileged).toBe(false);
    expect(parseConfig(privileged, privileged.shards[0], 0).runners[0].docker.privileged).toBe(true);
  });

  it("renders the docker section from the model", () => {
    // Two jobs per worker, which max_use_count must then allow (lib/model/capacity-checks.ts).
    const model = modelWith("cell-1", (m) => {
      m.shards[1].workers.capacity_per_instance = 2;
      m.shards[1].workers.max_use_count = 2;
    });
    const shard = model.shards[1];

    expect(parseConfig(model, shard, 0).runners[0].docker).toEqual({
      image: shard.docker.image,
      // The large shard runs Docker-in-Docker with TLS: privileged, with /certs/client shared.
      privileged: true,
      volumes: shard.docker.volumes,
      // Two jobs share each worker's image cache: only the registry, with the job's own credentials, serves an image.
      pull_policy: ["always"],
      allowed_pull_policies: ["always"],
      network_mtu: 1460,
      // Two jobs share an n2d-standard-8 (8 vCPUs, 32 GiB): 10% for the host, the rest split, 3/4 job, 1/4 service.
      cpus: "4",
      memory: "11059m",
      memory_reservation: "5529m",
      service_cpus: "4",
      service_memory: "3686m",
      service_memory_reservation: "1843m",
    });
    expect(shard.docker.volumes).toEqual(["/cache", "/certs/client"]);
  });

  it("sets no per-job limits when a worker runs one job at a time", () => {
    for (const [name, index] of [["cell-2", 0], ["cell-1", 1]] as const) {
      const model = exampleModel(name);

      const { docker } = parseConfig(model, model.shards[index], 0).runners[0];

      // cell-1's large-amd64: one job per worker (max_use_count 1), so the job has the whole n2d-standard-8.
      expect([name, Object.keys(docker).filter((key) => /cpus|memory/.test(key))]).toEqual([name, []]);
    }
  });

  it("derives per-job limits from an AWS instance type, and takes the model's own when it sets them", () => {
    const derived = modelWith("cell-2", (m) => {
      m.shards[0].workers.capacity_per_instance = 4;
      m.shards[0].workers.machine_type = "c7i.4xlarge";
      m.shards[0].workers.alternative_machine_types = [];
    });
    const stated = modelWith("cell-2", (m) => {
      m.shards[0].workers.capacity_per_instance = 3;
      m.shards[0].workers.machine_type = "t3.2xlarge";
      m.shards[0].workers.alternative_machine_types = [];
      m.shards[0].docker.job_limits = { cpus: 2.5, memory_mb: 8000, service_memory_mb: 1000 };
    });

    // c7i.4xlarge: 16 vCPUs, 32 GiB; the host keeps 3276.8 MiB; 4 shares of 7372.8 MiB.
    expect(parseConfig(derived, derived.shards[0], 0).runners[0].docker).toMatchObject({ cpus: "4", memory: "5529m", service_memory: "1843m" });
    expect(parseConfig(stated, stated.shards[0], 0).runners[0].docker).toMatchObject({
      cpus: "2.5",
      memory: "8000m",
      memory_reservation: "4000m",
      service_cpus: "2.5",
      service_memory: "1000m",
    });
  });

  it("keeps per-job networks at the VPC's 1460 MTU on Google Cloud, and at Docker's default on AWS", () => {
    const google = exampleModel("cell-1");
    const aws = exampleModel("cell-2");

    expect(parseConfig(google, google.shards[0], 0).runners[0].docker.network_mtu).toBe(1460);
    expect(parseConfig(aws, aws.shards[0], 0).runners[0].docker).not.toHaveProperty("network_mtu");
  });

  it.each(slotsOfExamples)("uses only keys gitlab-runner knows in $label", ({ model, shard, slot }) => {
    const known = loadKnownRunnerConfigKeys();

    const document = parseConfig(model, shard, slot);

    expect(unknownKeyPaths(document, known)).toEqual([]);
  });

  it("detects a key gitlab-runner does not know (the key check can fail)", () => {
    const known = loadKnownRunnerConfigKeys();
    const document = { concurrent: 1, runners: [{ name: "x", autoscaler: { idle_count: 1, plugin_config: { anything: "ok" } } }] };

    expect(tomlKeyPaths(document)).toContain("runners[].autoscaler.plugin_config.anything");
    expect(unknownKeyPaths(document, known)).toEqual(["runners[].autoscaler.idle_count"]);
  });

  it("quotes strings so any model value reads back unchanged", () => {
    const awkward = 'registry.example.com/a"b\\c:1\ttab\u0001\u007f é 🚀';
    const model = modelWith("cell-1", (m) => {
      m.shards[0].docker.image = awkward;
      m.shards[0].docker.volumes = ['/cache', "/with 'quotes'", "/back\\slash"];
    });

    const { docker } = parseConfig(model, model.shards[0], 0).runners[0];

    expect(docker.image).toBe(awkward);
    expect(docker.volumes).toEqual(['/cache', "/with 'quotes'", "/back\\slash"]);
  });

  it("supports several [[runners]] entries, each with its own worker group", () => {
    const model = exampleModel("cell-1");
    const shard = model.shards[0];

    const { runners } = parse(renderConfigTomlForSlots(model, shard, [0, 1])) as Toml;

    expect(runners.map((runner: Toml) => runner.name)).toEqual([runnerEntryName(model, shard, 0), runnerEntryName(model, shard, 1)]);
    expect(runners.map((runner: Toml) => runner.autoscaler.plugin_config.name)).toEqual([
      workerGroupName(model, shard, 0),
      workerGroupName(model, shard, 1),
    ]);
  });

  it.each(slotsOfExamples)("contains no token-shaped string for $label", ({ model, shard, slot }) => {
    const text = renderConfigToml(model, shard, slot);

    expect(text).not.toMatch(/glrt-[A-Za-z0-9_.-]{8,}/);
    expect(text).not.toMatch(/GR1348941/);
    expect(text.split(RUNNER_TOKEN_PLACEHOLDER)).toHaveLength(2);
  });

  it("fails when the slot is outside the shard's managers", () => {
    const model = exampleModel("cell-1");
    const shard = model.shards[0];

    expect(() => renderConfigToml(model, shard, shard.managers.count)).toThrow(/from 0 to 1, received 2/);
    expect(() => renderConfigToml(model, shard, -1)).toThrow(RangeError);
    expect(() => renderConfigToml(model, shard, 0.5)).toThrow(RangeError);
  });
});
