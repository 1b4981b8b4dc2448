/**
 * An import keeps what the runner did: each config.toml shape below is written the way the runner's
 * own tools and common setups write it (gitlab-runner register's empty [runners.cache], pre-12.0 cache
 * keys, cattle-ops' fleet-mode MachineOptions, a docker+machine runner relying on the amazonec2 driver's
 * defaults, the AWS config.toml runner-fleet renders itself), and the expected model follows the
 * runner's source (gitlab-runner v19.3.0) and docker-machine's driver defaults, cited where each is read
 * (app/import/*.ts).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, existsSync, copyFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ImportOptions } from "../../app/commands/import";
import { UserInputError } from "../../lib/process/errors";
import { renderConfigToml } from "../../lib/render/config-toml";
import { runInProcess, STACK_TRACE_LINE } from "../support/cli";
import { exampleModel, MODELS_DIR } from "../support/models";
import { importInto, writeConfig } from "./support";

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "import-behaviour-"));
  mkdirSync(join(root, "models"));
  copyFileSync(join(MODELS_DIR, "schema.json"), join(root, "models", "schema.json"));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const imported = (text: string, options: Partial<ImportOptions> = {}) => importInto(root, text, { now: new Date("2026-11-29T12:00:00Z"), ...options });

/** A docker+machine runner on AWS with the given [runners.cache] body and MachineOptions. */
function machineRunner({ cache = "", options = ['"amazonec2-region=eu-west-1"', '"amazonec2-zone=b"', '"amazonec2-instance-type=m5.large"'], extra = "" } = {}): string {
  return `concurrent = 10

[[runners]]
  name = "machine"
  url = "https://gitlab.example.com"
  token = "RUNNER_TOKEN_1"
  executor = "docker+machine"
  ${extra}
  [runners.docker]
    image = "alpine:3.20"
    pull_policy = ["if-not-present"]
    volumes = ["/cache"]
${cache}
  [runners.machine]
    IdleCount = 1
    IdleTime = 600
    MachineDriver = "amazonec2"
    MachineName = "runner-%s"
    MachineOptions = [${options.join(", ")}]
`;
}

describe("the cache", () => {
  it("is not enabled by an empty [runners.cache], what gitlab-runner register writes: the runner had no cache", async () => {
    const { shard, notes, text } = await imported(machineRunner({ cache: "  [runners.cache]\n" }));
    expect(text).toMatch(/runners\[0\]\.cache: a \[runners\.cache\] without a Type gitlab-runner has an adapter for/);
    expect(shard.cache).toEqual({ enabled: false });
    expect(notes).toContain("[runners.cache] names no Type (s3, gcs or azure): the runner had no distributed cache; imported with cache.enabled false");
  });

  it("is not enabled by the cache keys gitlab-runner 12.0 removed, which are listed as ignored by the runner", async () => {
    const cache = '  [runners.cache]\n    ServerAddress = "s3.amazonaws.com"\n    BucketName = "old-cache"\n    BucketLocation = "eu-west-1"\n    Insecure = false\n';
    const { shard, text } = await imported(machineRunner({ cache }));
    expect(shard.cache).toEqual({ enabled: false });
    for (const key of ["ServerAddress", "BucketName", "BucketLocation", "Insecure"]) {
      expect(text).toMatch(new RegExp(`runners\\[0\\]\\.cache\\.${key}: a \\[runners\\.cache\\] key gitlab-runner 12\\.0 removed`));
    }
  });

  it("fails to enable a cache whose Type no adapter has: the runner ran without one", async () => {
    const { shard, notes } = await imported(machineRunner({ cache: '  [runners.cache]\n    Type = "minio"\n' }));
    expect(shard.cache).toEqual({ enabled: false });
    expect(notes).toContain('Type "minio" is none of s3, gcs, azure');
  });

  it("keeps Shared left out as gitlab-runner's false, with a note, and Shared = true as true", async () => {
    const unshared = await imported(machineRunner({ cache: '  [runners.cache]\n    Type = "s3"\n    [runners.cache.s3]\n      BucketName = "c"\n' }));
    expect(unshared.shard.cache).toEqual({ enabled: true, shared: false });
    expect(unshared.notes).toContain("Shared not set: gitlab-runner's default, false");
    rmSync(join(root, "models", "cell-7.yaml"));
    const shared = await imported(machineRunner({ cache: '  [runners.cache]\n    Type = "s3"\n    Shared = true\n' }));
    expect(shared.shard.cache).toEqual({ enabled: true, shared: true });
  });
});

describe("docker+machine's own defaults", () => {
  it("applies the amazonec2 driver's defaults: us-east-1, zone a, t2.micro, each with a note, and speaks of no fleeting plugin", async () => {
    const { model, shard, notes } = await imported(machineRunner({ options: ['"amazonec2-request-spot-instance=false"'] }), { writeRefused: true });
    expect(model.cloud).toMatchObject({ provider: "aws", region: "us-east-1", availability_zones: ["us-east-1a"] });
    expect(shard.workers.machine_type).toBe("t2.micro");
    expect(notes).toContain("MachineOptions name no amazonec2-region: docker-machine's amazonec2 driver used us-east-1");
    expect(notes).toContain("MachineOptions name no amazonec2-zone: docker-machine's amazonec2 driver used zone a");
    expect(notes).toContain("docker-machine's amazonec2 driver launched t2.micro, kept as workers.machine_type");
    expect(notes).not.toMatch(/fleeting|launch template/);
  });

  it("fails when --region disagrees with the driver's default region the machines ran in (exit 2), naming both", async () => {
    await expect(imported(machineRunner({ options: ['"amazonec2-instance-type=m5.large"'] }), { region: "eu-west-1" })).rejects.toThrow(
      "--region eu-west-1, but the runners ran in us-east-1 (as the config.toml says, or docker-machine's driver default where its MachineOptions name no region)",
    );
    expect(existsSync(join(root, "models", "cell-7.yaml"))).toBe(false);
  });

  it("keeps the first of repeated MachineOptions (cattle-ops' fleet mode) and names the others, never keeping only the last", async () => {
    const options = [
      '"amazonec2-region=eu-west-1"',
      '"amazonec2-instance-type=m5.large"',
      '"amazonec2-instance-type=m5a.large"',
      '"amazonec2-instance-type=m6i.large"',
      '"amazonec2-vpc-id=vpc-0123456789abcdef0"',
      '"amazonec2-subnet-id=subnet-0aaaaaaaaaaaaaaa1"',
      '"amazonec2-subnet-id=subnet-0bbbbbbbbbbbbbbb2"',
      '"amazonec2-zone=a"',
    ];
    const { shard, model, notes, text } = await imported(machineRunner({ options }));
    expect(shard.workers.machine_type).toBe("m5.large");
    expect(model.network.existing.subnets).toEqual(["subnet-0aaaaaaaaaaaaaaa1"]);
    expect(notes).toContain("MachineOptions give amazonec2-instance-type 3 times: kept m5.large; also listed m5a.large, m6i.large");
    expect(notes).toContain("MachineOptions give amazonec2-subnet-id 2 times: kept subnet-0aaaaaaaaaaaaaaa1; also listed subnet-0bbbbbbbbbbbbbbb2");
    // Each repeat is listed by its place in the file too.
    expect(text).toMatch(/runners\[0\]\.machine\.MachineOptions\[2\] \(amazonec2-instance-type\): amazonec2-instance-type given again/);
  });
});

describe("docker-autoscaler", () => {
  const autoscaler = (pluginConfig: string, policy = "") => `concurrent = 20

[[runners]]
  name = "fleet"
  url = "https://gitlab.example.com"
  token = "RUNNER_TOKEN_1"
  executor = "docker-autoscaler"
  [runners.docker]
    image = "alpine:3.20"
    pull_policy = ["always"]
    volumes = []
  [runners.autoscaler]
    plugin = "aws"
    capacity_per_instance = 1
    max_instances = 20
    [runners.autoscaler.plugin_config]
${pluginConfig}
${policy}
`;

  it("reads the aws plugin's region from plugin_config, so no --region is needed", async () => {
    const { model } = await imported(autoscaler('      name = "asg"\n      region = "eu-central-1"\n'));
    expect(model.cloud).toMatchObject({ provider: "aws", region: "eu-central-1" });
  });

  it("fails when plugin_config.region is not a region (exit 2), naming the key", async () => {
    await expect(imported(autoscaler('      name = "asg"\n      region = "Frankfurt"\n'))).rejects.toThrow(/plugin_config\.region.*an AWS region such as eu-west-1/);
  });

  it("notes a policy with periods and no timezone: gitlab-runner read it in the manager's local time, the model in UTC", async () => {
    const policy = '    [[runners.autoscaler.policy]]\n      periods = ["* 8-18 * * mon-fri"]\n      idle_count = 2\n      idle_time = "20m"\n';
    const { notes, shard } = await imported(autoscaler('      name = "asg"\n      region = "eu-central-1"\n', policy));
    expect(shard.autoscaling.policies[0]).not.toHaveProperty("timezone");
    expect(notes).toContain("autoscaler.policy[0]: no timezone; gitlab-runner read its periods in the manager's local time zone, the model uses UTC");
  });

  it("re-imports the AWS config.toml runner-fleet renders for cell-2, without --region, keeping its shard", async () => {
    const model = exampleModel("cell-2");
    const shard = model.shards[0];
    const rendered = renderConfigToml(model, shard, 0).replace(/__RUNNER_TOKEN__|RUNNER_TOKEN_PLACEHOLDER/g, "RUNNER_TOKEN_1");
    const again = await imported(rendered);
    expect(again.model.cloud).toMatchObject({ provider: "aws", region: model.cloud.region });
    expect(again.shard.managers.concurrent).toBe(shard.managers.concurrent);
    expect(again.shard.workers).toMatchObject({ capacity_per_instance: shard.workers.capacity_per_instance, max_use_count: shard.workers.max_use_count, max_instances: shard.workers.max_instances });
    expect(again.shard.docker.image).toBe(shard.docker.image);
    expect(again.shard.cache.enabled).toBe(true);
  });
});

describe("concurrent", () => {
  const twoRunners = (limits: [number, number]) =>
    [0, 1]
      .map(
        (index) => `[[runners]]
  name = "r${index}"
  url = "https://gitlab.example.com"
  token = "RUNNER_TOKEN_${index + 1}"
  executor = "docker+machine"
  ${limits[index] > 0 ? `limit = ${limits[index]}` : ""}
  [runners.docker]
    image = "alpine:3.${20 + index}"
    pull_policy = ["always"]
    volumes = []
  [runners.machine]
    MachineDriver = "amazonec2"
    MachineName = "r${index}-%s"
    MachineOptions = ["amazonec2-region=eu-west-1", "amazonec2-zone=a", "amazonec2-instance-type=m5.large"]
`,
      )
      .join("\n");

  it("is not copied into every shard: two runners without limit under concurrent 10 get 5 each, with a note", async () => {
    const { shards, notes } = await imported(`concurrent = 10\n\n${twoRunners([0, 0])}`);
    expect(shards.map((shard) => [shard.managers.concurrent, shard.workers.max_instances])).toEqual([
      [5, 5],
      [5, 5],
    ]);
    expect(notes).toContain("concurrent 10 bounded its 2 runners together (one gitlab-runner process), their limits adding up to 20");
  });

  it("shares it in proportion to the limits when they add up to more: limit 2 and none under concurrent 10 are 1 and 8", async () => {
    const { shards } = await imported(`concurrent = 10\n\n${twoRunners([2, 0])}`);
    // floor(10 × 2 / 12) = 1, floor(10 × 10 / 12) = 8.
    expect(shards.map((shard) => shard.managers.concurrent)).toEqual([1, 8]);
  });

  it("keeps each runner's limit when the limits fit under concurrent, without a note", async () => {
    const { shards, notes } = await imported(`concurrent = 10\n\n${twoRunners([4, 6])}`);
    expect(shards.map((shard) => shard.managers.concurrent)).toEqual([4, 6]);
    expect(notes).not.toContain("bounded its");
  });
});

describe("defaults the runner had", () => {
  it("writes gitlab-runner's pull_policy always and no /cache volume, and notes the image the model adds", async () => {
    const text = `concurrent = 4
[[runners]]
  name = "host"
  url = "https://gitlab.example.com"
  token = "RUNNER_TOKEN_1"
  executor = "docker+machine"
  [runners.docker]
    privileged = false
  [runners.machine]
    MachineDriver = "amazonec2"
    MachineName = "m-%s"
    MachineOptions = ["amazonec2-region=eu-west-1", "amazonec2-zone=a", "amazonec2-instance-type=m5.large"]
`;
    const { shard, notes } = await imported(text);
    expect(shard.docker).toEqual({ privileged: false, volumes: [], pull_policy: ["always"] });
    expect(notes).toContain("no [runners.docker] pull_policy: gitlab-runner's default, always, is written into the model");
    expect(notes).toContain("no [runners.docker] volumes: the jobs had no /cache volume; kept as volumes: []");
    expect(notes).toContain("no [runners.docker] image: gitlab-runner failed every job that names no image");
  });

  it("says what state the model needs for provision in CI", async () => {
    const { notes } = await imported(machineRunner());
    expect(notes).toContain("which provision refuses in CI (CI=true)");
    expect(notes).toContain("state: {backend: http, project_id: <the models project>}");
    expect(notes).toContain("{backend: s3, bucket: <an existing bucket>, region: eu-west-1}");
  });
});

describe("a model prepare refuses", () => {
  const insecure = machineRunner().replace("https://gitlab.example.com", "http://gitlab.corp.example");

  it("fails without --write-refused (exit 2), naming the refusal and the flag, and writes nothing", async () => {
    await expect(imported(insecure)).rejects.toThrow(UserInputError);
    await expect(imported(insecure)).rejects.toThrow(/--write-refused writes it all the same/);
    expect(existsSync(join(root, "models", "cell-7.yaml"))).toBe(false);
  });

  it("is written with --write-refused, the refusals at the top of its header and in the report; prepare then refuses it", async () => {
    const config = writeConfig(insecure, { dir: root });
    const out = join(root, "models", "cell-7.yaml");
    const run = await runInProcess("import", ["--config", config.file, "--cell", "cell-7", "--cloud", "aws", "--out", out, "--write-refused"], { cwd: root });
    expect(run.stderr).not.toMatch(STACK_TRACE_LINE);
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/prepare refuses the model until these are fixed[^\n]*\n  gitlab\.url: expected/);
    const text = readFileSync(out, "utf8");
    expect(text).toMatch(/# PREPARE REFUSES THIS MODEL until these are fixed \(written with import --write-refused\):\n# {3}- gitlab\.url: expected/);
    const prepared = await runInProcess("prepare", ["--models-dir", join(root, "models"), "--model", "cell-7"], { cwd: root });
    expect(prepared.status).toBe(2);
  });

  it("fails when --write-refused is given with --adopt (exit 2), before reading anything", async () => {
    const run = await runInProcess("import", ["--config", "nowhere.toml", "--cell", "cell-7", "--cloud", "aws", "--adopt", "--write-refused"], { cwd: root });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("--write-refused cannot be used with --adopt");
  });
});

describe("docker+machine's google driver defaults", () => {
  it("applies us-central1-a and n1-standard-1 when MachineOptions name neither, with a note each", async () => {
    const text = `concurrent = 2
[[runners]]
  name = "gce"
  url = "https://gitlab.example.com"
  token = "RUNNER_TOKEN_1"
  executor = "docker+machine"
  [runners.docker]
    image = "alpine:3.20"
    pull_policy = ["always"]
    volumes = []
  [runners.machine]
    MachineDriver = "google"
    MachineName = "gce-%s"
    MachineOptions = ["google-project=acme-runners"]
`;
    const { model, shard, notes } = await imported(text, { cloud: "google" });
    expect(model.cloud).toMatchObject({ provider: "google", project: "acme-runners", region: "us-central1", zones: ["us-central1-a"] });
    expect(shard.workers.machine_type).toBe("n1-standard-1");
    expect(notes).toContain("MachineOptions name no google-zone: docker-machine's google driver used us-central1-a");
    expect(notes).toContain("docker-machine's google driver launched n1-standard-1");
  });
});
