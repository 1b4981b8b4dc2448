/**
 * What import makes of each config.toml key: every mapped key lands where the model reads it, every
 * other key is listed (file, key path, line:col, why) in the model's header and on stderr, and bad
 * input stops with exit 2 naming the file, the key and its line:col. Fixtures: test/fixtures/config-toml.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "yaml";
import { runImport, type ImportOptions } from "../../app/commands/import";
import { runInProcess, STACK_TRACE_LINE } from "../support/cli";
import { fixtureText, importInto, writeConfig } from "./support";

let root: string;
beforeEach(() => (root = mkdtempSync(join(tmpdir(), "import-mapping-"))));
afterEach(() => rmSync(root, { recursive: true, force: true }));

type Shard = Record<string, any>;

const imported = (text: string, options: Partial<ImportOptions> = {}) => importInto(root, text, { now: new Date("2026-11-25T12:00:00Z"), ...options });

describe("docker+machine on AWS", () => {
  it("maps concurrent and limit, [runners.docker], the cache, [runners.machine] and the amazonec2 MachineOptions", async () => {
    const { model, shard } = await imported(fixtureText("docker-machine-aws.toml"));
    expect(model.gitlab).toEqual({ url: "https://gitlab.example.com" });
    // amazonec2-region, and amazonec2-zone's letter joined to it.
    expect(model.cloud).toEqual({ provider: "aws", region: "eu-west-1", availability_zones: ["eu-west-1b"] });
    // amazonec2-vpc-id with amazonec2-subnet-id: the network the machines ran in, kept.
    expect(model.network).toEqual({ existing: { network: "vpc-0123456789abcdef0", subnets: ["subnet-0123456789abcdef0"] } });
    expect(model.secrets).toEqual({ store: "aws-ssm" });
    expect(shard.name).toBe("aws-autoscale");
    expect(shard.description).toBe("aws-autoscale");
    // limit 20 under concurrent 50: the manager runs 20 jobs; docker+machine runs one job per machine.
    expect(shard.managers).toMatchObject({ count: 1, concurrent: 20 });
    expect(shard.workers).toEqual({ machine_type: "m5.large", disk_size_gb: 40, capacity_per_instance: 1, max_use_count: 10, max_instances: 20, spot: true });
    // No pull_policy in the file: gitlab-runner's default, always (common/config.go GetPullPolicies), not the model's.
    expect(shard.docker).toEqual({ image: "ruby:3.3", privileged: true, volumes: ["/cache"], pull_policy: ["always"] });
    expect(shard.cache).toEqual({ enabled: true, shared: true });
    expect(shard.autoscaling.policies).toEqual([
      { periods: ["* * * * *"], idle_count: 2, idle_time: "30m" },
      // IdleCount 50 capped at the 20 machines `limit` allows, as docker+machine caps it.
      { periods: ["* 9-17 * * mon-fri"], timezone: "Europe/Dublin", idle_count: 20, idle_time: "1h" },
      { periods: ["* * * * sat,sun"], timezone: "UTC", idle_count: 0, idle_time: "1m" },
    ]);
  });

  it("lists every key it does not map, by key and line:col, in the model's header and on stderr, never a value", async () => {
    const config = writeConfig(fixtureText("docker-machine-aws.toml"), { dir: root });
    const out = join(root, "models", "cell-7.yaml");
    const run = await runInProcess("import", ["--config", config.file, "--cell", "cell-7", "--cloud", "aws", "--out", out]);
    expect(run.status).toBe(0);
    const text = readFileSync(out, "utf8");
    const expected = [
      "2:1: check_interval: runner-fleet renders its own config.toml",
      "7:3: runners[0].token: the runner's token is never written into a model",
      "18:7: runners[0].cache.s3.ServerAddress: the model creates the shard's own cache bucket",
      "19:7: runners[0].cache.s3.AccessKey: ",
      "20:7: runners[0].cache.s3.SecretKey: ",
      "21:7: runners[0].cache.s3.BucketName: ",
      "22:7: runners[0].cache.s3.BucketLocation: ",
      "28:5: runners[0].machine.MachineName: runner-fleet names its instances itself",
      "30:7: runners[0].machine.MachineOptions[0] (amazonec2-access-key): cloud credentials never go into a model",
      "31:7: runners[0].machine.MachineOptions[1] (amazonec2-secret-key): cloud credentials never go into a model",
      "36:7: runners[0].machine.MachineOptions[6] (amazonec2-use-private-address): ",
      "37:7: runners[0].machine.MachineOptions[7] (amazonec2-security-group): ",
      "41:7: runners[0].machine.MachineOptions[11] (amazonec2-spot-price): ",
    ];
    const header = text.split("\n").filter((line) => line.startsWith("#   - ") && line.includes(`${config.file}:`));
    const stderr = run.stderr.split("\n").filter((line) => line.includes(`${config.file}:`));
    for (const listing of [header, stderr]) {
      expect(listing).toHaveLength(expected.length);
      expected.forEach((entry, index) => expect(listing[index]).toContain(`${config.file}:${entry}`));
    }
    expect(text).toContain("# Not imported (13 keys with no place in the model):");
    // The model's own warnings, as prepare prints them: privileged jobs on reused machines (MaxBuilds 10).
    expect(run.stdout).toContain(`${out}:74:19: warning: shards[0].docker.privileged: expected workers.max_use_count: 1 with privileged jobs`);
    for (const secret of ["MACHINE_ACCESS_KEY", "MACHINE_SECRET_KEY", "CACHE_ACCESS_KEY", "CACHE_SECRET_KEY", config.tokens[0]]) {
      expect(text).not.toContain(secret);
      expect(run.stderr + run.stdout).not.toContain(secret);
    }
  });
});

describe("docker+machine on Google Cloud", () => {
  it("maps the google MachineOptions, IdleScaleFactor and IdleCountMin, engine-registry-mirror and a pull_policy string", async () => {
    const { model, shard } = await imported(fixtureText("docker-machine-google.toml"), { cloud: "google" });
    expect(model.gitlab.url).toBe("https://gitlab.example.com");
    expect(model.cloud).toEqual({ provider: "google", project: "acme-runners-gce", region: "europe-west4", zones: ["europe-west4-b"] });
    expect(model.secrets).toEqual({ store: "google-secret-manager" });
    expect(shard.workers).toEqual({ machine_type: "n2d-standard-4", disk_size_gb: 50, capacity_per_instance: 1, max_use_count: 1, max_instances: 10, spot: true });
    // No volumes in the file: the jobs had no /cache volume, and the model keeps none.
    expect(shard.docker).toEqual({ image: "alpine:3.20", privileged: false, pull_policy: ["if-not-present"], registry_mirror: "https://mirror.gcr.io", volumes: [] });
    expect(shard.cache).toEqual({ enabled: true, shared: false });
    expect(shard.autoscaling.policies).toEqual([
      // max(IdleCountMin, min(IdleCount, in use x IdleScaleFactor)) is the policy's max(idle_count, min(scale_factor_limit, in use x scale_factor)).
      { periods: ["* * * * *"], idle_count: 1, idle_time: "10m", scale_factor: 1.5, scale_factor_limit: 4 },
      { periods: ["30-59 7 * * mon-fri", "* 8-18 * * mon-fri"], timezone: "Europe/Amsterdam", idle_count: 8, idle_time: "20m" },
    ]);
  });
});

describe("docker-autoscaler", () => {
  it("maps [runners.autoscaler], its policies, plugin_config project and zone and connector_config username (Google)", async () => {
    const { model, shard, text } = await imported(fixtureText("docker-autoscaler-google.toml"), { cloud: "google" });
    expect(model.cloud).toEqual({ provider: "google", project: "acme-runners-gcp", region: "europe-west1", zones: ["europe-west1-c"] });
    expect(shard.name).toBe("docker-autoscaler-gcp");
    expect(shard.managers).toMatchObject({ concurrent: 20 });
    // The instance type lives in the instance group, not in config.toml: a default, said in the header.
    expect(shard.workers).toEqual({ machine_type: "n2d-standard-2", capacity_per_instance: 2, max_use_count: 4, max_instances: 10, username: "runner" });
    expect(text).toContain("does not name the workers' machine type");
    expect(shard.autoscaling.policies).toEqual([
      { idle_count: 4, idle_time: "20m0s" },
      { periods: ["* 8-18 * * mon-fri"], timezone: "Europe/Brussels", idle_count: 10, idle_time: "30m", scale_factor: 0.5, scale_factor_limit: 8 },
    ]);
    expect(text).toMatch(/runners\[0\]\.autoscaler\.plugin_config\.credentials_file: the managers authenticate with their own cloud identity/);
    expect(text).toMatch(/runners\[0\]\.autoscaler\.plugin_config\.name: runner-fleet creates and names the worker group itself/);
  });

  it("takes the region from --region when the file has none (AWS), and says so when neither has it", async () => {
    const { model } = await imported(fixtureText("docker-autoscaler-aws.toml"), { region: "eu-central-1" });
    expect(model.cloud).toEqual({ provider: "aws", region: "eu-central-1", availability_zones: ["eu-central-1a", "eu-central-1b"] });
    await expect(imported(fixtureText("docker-autoscaler-aws.toml"))).rejects.toThrow(/^--region is needed: the config.toml files name no region/);
  });
});

describe("what has no equivalent", () => {
  const mixed = `concurrent = 4

[[runners]]
  name = "shell on the host"
  url = "https://gitlab.example.com"
  token = "RUNNER_TOKEN_1"
  executor = "shell"
  builds_dir = "/builds"

[[runners]]
  name = "docker host"
  url = "https://gitlab.example.com"
  token = "RUNNER_TOKEN_2"
  executor = "docker"
  pre_build_script = "echo hello"
  environment = ["A=1"]
  request_concurrency = 2
  [runners.docker]
    image = "alpine:3.20"
    cpus = "2"
    memory = "4g"
`;

  it("leaves out a runner whose executor has no equivalent, listing each of its keys, and reports custom scripts", async () => {
    const { model, text, result } = await imported(mixed, { region: "eu-west-1" });
    expect(model.shards.map((shard: Shard) => shard.name)).toEqual(["docker-host"]);
    for (const key of ["name", "url", "token", "executor", "builds_dir"]) {
      expect(text).toMatch(new RegExp(`:\\d+:\\d+: runners\\[0\\]\\.${key}: executor "shell" has no equivalent in runner-fleet \\(docker-autoscaler\\): this runner is not imported`));
    }
    expect(text).toMatch(/:15:3: runners\[1\]\.pre_build_script: custom scripts have no equivalent in the model/);
    expect(text).toMatch(/:16:3: runners\[1\]\.environment: job environment variables are not part of the model/);
    expect(result.unmapped.map((key) => key.key)).toEqual([
      "runners[0].name",
      "runners[0].url",
      "runners[0].token",
      "runners[0].executor",
      "runners[0].builds_dir",
      "runners[1].token",
      "runners[1].pre_build_script",
      "runners[1].environment",
    ]);
  });

  it("imports a docker executor as one always-ready worker, with cpus and memory as job limits, request_concurrency, and no cache", async () => {
    const { shard } = await imported(mixed, { region: "eu-west-1" });
    expect(shard.managers).toMatchObject({ concurrent: 4, request_concurrency: 2 });
    expect(shard.workers).toMatchObject({ capacity_per_instance: 4, max_use_count: 0, max_instances: 1 });
    expect(shard.autoscaling.policies).toEqual([{ periods: ["* * * * *"], idle_count: 4, idle_time: "1h" }]);
    expect(shard.docker).toEqual({ image: "alpine:3.20", job_limits: { cpus: 2, memory_mb: 4096 }, pull_policy: ["always"], volumes: [] });
    expect(shard.cache).toEqual({ enabled: false });
  });

  it("fails when no runner can be imported", async () => {
    await expect(imported(`[[runners]]\n  name = "k"\n  url = "https://gitlab.example.com"\n  executor = "kubernetes"\n`, { region: "eu-west-1" })).rejects.toThrow(
      /no \[\[runners\]\] entry with a docker\+machine, docker-autoscaler or docker executor; nothing to import/,
    );
  });
});

describe("allowed_pull_policies", () => {
  const withAllowed = (allowed: string) => `concurrent = 2

[[runners]]
  name = "docker host"
  url = "https://gitlab.example.com"
  token = "RUNNER_TOKEN_1"
  executor = "docker"
  [runners.docker]
    image = "alpine:3.20"
    pull_policy = ["always"]
    allowed_pull_policies = ${allowed}
`;

  it("is carried over by pull_policy when it lists the same policies, which is what runner-fleet renders", async () => {
    const { shard, result } = await imported(withAllowed('["always"]'), { region: "eu-west-1" });
    expect(shard.docker.pull_policy).toEqual(["always"]);
    expect(result.unmapped.map((key) => key.key)).not.toContain("runners[0].docker.allowed_pull_policies");
  });

  it("is listed as not carried over when it allows more than pull_policy", async () => {
    const { text, result } = await imported(withAllowed('["always", "if-not-present"]'), { region: "eu-west-1" });
    expect(result.unmapped.map((key) => key.key)).toContain("runners[0].docker.allowed_pull_policies");
    expect(text).toMatch(/runners\[0\]\.docker\.allowed_pull_policies: runner-fleet allows exactly the shard's pull_policy/);
  });
});

describe("keys set to gitlab-runner's default", () => {
  it("are listed as kept when the value is the default runner-fleet's config.toml leaves in place, and as lost otherwise", async () => {
    const kept = await imported(fixtureText("docker-executor.toml"), { cloud: "google", region: "europe-west4", project: "acme-runners-docker" });
    expect(kept.text).toMatch(/:14:5: runners\[0\]\.docker\.tls_verify: gitlab-runner's default, which runner-fleet's config\.toml keeps/);
    expect(kept.text).toMatch(/:6:3: session_server\.session_timeout: gitlab-runner's default/);
    rmSync(join(root, "models"), { recursive: true, force: true });
    const changed = await imported(fixtureText("docker-executor.toml").replace("tls_verify = false", "tls_verify = true"), { cloud: "google", region: "europe-west4", project: "acme-runners-docker" });
    expect(changed.text).toMatch(/:14:5: runners\[0\]\.docker\.tls_verify: no equivalent in the model/);
  });
});

describe("merging", () => {
  it("merges entries that differ only in token and name into one shard with a manager each", async () => {
    const one = writeConfig(fixtureText("docker-autoscaler-aws.toml"), { dir: root, name: "manager-1.toml" });
    const two = writeConfig(fixtureText("docker-autoscaler-aws.toml").replace('name = "docker autoscaler aws"', 'name = "second manager"'), { dir: root, name: "manager-2.toml" });
    const out = join(root, "models", "cell-7.yaml");
    const result = await runImport({ configs: [one.file, two.file], cell: "cell-7", cloud: "aws", region: "eu-west-1", out });
    const model = parse(readFileSync(out, "utf8"));
    expect(model.shards).toHaveLength(1);
    expect(model.shards[0].managers.count).toBe(2);
    expect(result.shards[0].entries).toEqual([`${one.file}:3:1 runners[0]`, `${two.file}:3:1 runners[0]`]);
  });
});

describe("bad input", () => {
  const run = async (text: string, extra: string[] = []) => {
    const config = writeConfig(text, { dir: root });
    const result = await runInProcess("import", ["--config", config.file, "--cell", "cell-7", "--cloud", "aws", "--out", join(root, "models", "cell-7.yaml"), ...extra]);
    expect(result.stderr).not.toMatch(STACK_TRACE_LINE);
    return { ...result, file: config.file };
  };

  it("fails with exit 2 and the file's line:col on a TOML syntax error, writing nothing", async () => {
    const result = await run(`concurrent = 4\n[[runners]\n  name = "x"\n`);
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(new RegExp(`^error: ${result.file}:2:\\d+: not valid TOML: `));
    expect(() => readFileSync(join(root, "models", "cell-7.yaml"))).toThrow();
  });

  it("fails with exit 2 naming the key path, line:col and the value on a value of the wrong type", async () => {
    const text = fixtureText("docker-machine-aws.toml").replace("IdleCount = 2", 'IdleCount = "two"');
    const result = await run(text);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain(`error: ${result.file}:24:5: runners[0].machine.IdleCount: expected a whole number >= 0, received "two"`);
  });

  it("fails with exit 2 on a period cronexpr refuses, at its line", async () => {
    const text = fixtureText("docker-machine-aws.toml").replace('"* * 9-17 * * mon-fri *"', '"* * 25 * * mon-fri *"');
    const result = await run(text);
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(new RegExp(`error: ${result.file}:44:18: runners\\[0\\]\\.machine\\.autoscaling\\[0\\]\\.Periods\\[0\\]: expected a period in gitlab-runner's cron dialect .*\\(cronexpr: .+\\), received "\\* \\* 25 \\* \\* mon-fri \\*"`));
  });

  it("fails with exit 2 at the key on a time zone or idle_time the model would refuse", async () => {
    const zone = await run(fixtureText("docker-machine-aws.toml").replace('"Europe/Dublin"', '"Europe/Dubln"'));
    expect(zone.status).toBe(2);
    expect(zone.stderr).toContain(`${zone.file}:47:7: runners[0].machine.autoscaling[0].Timezone: expected an IANA time zone such as "Europe/Berlin" (did you mean "Europe/Dublin"?), received "Europe/Dubln"`);
    const idle = await run(fixtureText("docker-autoscaler-aws.toml").replace('idle_time = "20m0s"', 'idle_time = "20 minutes"'), ["--region", "eu-west-1"]);
    expect(idle.status).toBe(2);
    expect(idle.stderr).toContain(`${idle.file}:31:7: runners[0].autoscaler.policy[0].idle_time: expected a Go duration such as "20m" or "1h30m", received "20 minutes"`);
  });

  it("fails with exit 2 on an unusable MachineOptions value without repeating it", async () => {
    const text = fixtureText("docker-machine-aws.toml").replace("amazonec2-region=eu-west-1", "amazonec2-region=Ireland");
    const result = await run(text);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain(`${result.file}:32:7: runners[0].machine.MachineOptions[2]: expected amazonec2-region=<an AWS region such as eu-west-1>, received another value (not repeated`);
    expect(result.stderr).not.toContain("Ireland");
  });

  it("fails with exit 2 naming the flag when --cloud disagrees with the file, or the cell id is not a DNS label", async () => {
    const wrongCloud = await run(fixtureText("docker-machine-google.toml"));
    expect(wrongCloud.status).toBe(2);
    expect(wrongCloud.stderr).toContain("--cloud aws, but");
    expect(wrongCloud.stderr).toContain("runs on google");
    const config = writeConfig(fixtureText("docker-machine-aws.toml"), { dir: root });
    const badCell = await runInProcess("import", ["--config", config.file, "--cell", "Cell_7", "--cloud", "aws"]);
    expect(badCell.status).toBe(2);
    expect(badCell.stderr).toContain("--cell must be a DNS label");
  });

  it("fails with exit 2 naming every missing flag, before reading anything", async () => {
    const result = await runInProcess("import", []);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain("--config is required: a gitlab-runner config.toml (repeatable)");
    expect(result.stderr).toContain("--cell is required: the id of the cell the model is for");
    expect(result.stderr).toContain("--cloud is required: google or aws");
  });

  it("refuses to replace an existing model without --force", async () => {
    const first = await run(fixtureText("docker-machine-aws.toml"));
    expect(first.status).toBe(0);
    const second = await run(fixtureText("docker-machine-aws.toml"));
    expect(second.status).toBe(2);
    expect(second.stderr).toContain("cell-7.yaml exists; nothing was written (--force replaces it)");
    expect((await run(fixtureText("docker-machine-aws.toml"), ["--force"])).status).toBe(0);
  });
});
