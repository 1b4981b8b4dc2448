/**
 * The runner model: one YAML file per cell. This file is the single source of
 * truth for its shape, its defaults and its documentation; the TypeScript types
 * (`z.infer`) and `models/schema.json` are both derived from it.
 *
 * Checks that involve more than one field live in `cross-checks.ts`.
 */
import { z } from "zod";
import { parseGoDurationSeconds } from "./duration";
import { normaliseTags } from "./tags";
import { CRONEXPR_DIALECT, parseCronexpr } from "./cronexpr";
import { isValidCidr } from "../network/cidr";
import { closestTimeZone, hasUserInfo, isValidTimeZone } from "./value-checks";
import { INSECURE_HTTP_SETTING } from "./gitlab-url-policy";
import { EXACT_VERSION, MIRROR_REFERENCE } from "./fleeting-plugin";

const DNS_LABEL = /^[a-z]([a-z0-9-]{0,61}[a-z0-9])?$/;
const dnsLabel = z
  .string()
  .regex(DNS_LABEL, "a DNS label: lowercase letters, digits and '-', starting with a letter, at most 63 characters");

/**
 * Cell ids and shard names: DNS labels without "--". The local secret store names a
 * shard's file "<cell>--<shard>.json", so cell "aa" with shard "bb--cc" and cell "aa--bb"
 * with shard "cc" would share one file; without "--" in either, the name is unambiguous.
 */
const storeSafeLabel = dnsLabel.refine((text) => !text.includes("--"), {
  message: "a DNS label without \"--\" (secret names join the cell id and the shard name with \"--\")",
});

/** A Go duration ("20m", "1h30m"), as gitlab-runner reads `idle_time`. */
const goDuration = z
  .string()
  .refine((text) => parseGoDurationSeconds(text) !== undefined, {
    message: 'a Go duration such as "20m", "1h30m" or "90s", at most 2562047h (Go\'s maximum)',
  })
  .meta({ pattern: "^([0-9]*(\\.[0-9]*)?(ns|us|µs|ms|s|m|h))+$" });

/** Checked by the rules of the model's cloud (Google labels or AWS tags) in label-checks.ts. */
const labels = z.record(z.string(), z.string()).default({});

export const DEFAULT_NETWORK_CIDR = "10.0.0.0/16";
const cidr = z
  .string()
  .refine(isValidCidr, { message: "an IPv4 CIDR block such as 10.0.0.0/16, with no host bits set" })
  .meta({ pattern: "^([0-9]{1,3}\\.){3}[0-9]{1,3}/[0-9]{1,2}$" });

/** A proxy is named in the model; its credentials, if any, are not (a model is not a secret). */
const proxyUrl = z
  .url({ protocol: /^https?$/, error: "an http(s) URL of a proxy, such as http://proxy.corp.example:3128" })
  .refine((url) => !hasUserInfo(url), { message: "a proxy URL without a user name or password (credentials never go into a model)" });

/** Variables that hold credentials other than the GitLab admin token: never read as token_env. */
const OTHER_CREDENTIALS = /^(CI_|GITLAB_REVIEW_TOKEN$|MODELS_PUSH_TOKEN$|AWS_|GOOGLE_|TF_|ARM_|VAULT_)/i;

function inRange(value: number | undefined, min: number, max: number): boolean {
  return value !== undefined && value >= min && value <= max;
}

const gitlab = z
  .strictObject({
    url: z
      .url({ protocol: /^https?$/, error: "an http(s) URL of the GitLab instance, such as https://gitlab.example.com" })
      .refine((url) => !hasUserInfo(url), { message: "a URL without a user name or password (credentials never go into a model; the token is read from token_env)" })
      .describe("Root URL of the GitLab instance the runners register with; a path is allowed only as a relative URL root (https://host/gitlab). Error (exit 2): a query, a fragment, or an API path such as /api/v4 (the toolkit and gitlab-runner add it themselves)."),
    token_env: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "an environment variable name")
      // The token is sent to gitlab.url: naming another credential's variable (a trigger may set it) would send that credential there.
      .refine((name) => !OTHER_CREDENTIALS.test(name), {
        message: "a variable of its own for the GitLab admin token, not one of GitLab's predefined CI_* variables or another credential (GITLAB_REVIEW_TOKEN, MODELS_PUSH_TOKEN, AWS_*, GOOGLE_*, TF_*)",
      })
      .default("GITLAB_TOKEN")
      .describe("Name of the environment variable holding an admin (or group/project Owner) token with the create_runner or api scope."),
    [INSECURE_HTTP_SETTING]: z
      .boolean()
      .default(false)
      .describe(
        "Accept a plain http:// gitlab.url (or clone_url) on a host other than this machine. The admin token then crosses the network in clear text; every run says so. Leave false: use https, with ca_file for a private CA.",
      ),
    request_timeout: goDuration
      .refine((text) => inRange(parseGoDurationSeconds(text), 1, 600), { message: "a duration from 1s to 10m" })
      .default("30s")
      .describe("Time limit of one request to GitLab, body included; a server that accepts and never answers fails the attempt then. Retries stop at the retry budget (--retry-timeout)."),
    ca_file: z
      .string()
      .min(1)
      .optional()
      .describe(
        "PEM bundle of the private CA that signed GitLab's certificate; a relative path is relative to the workspace, the directory that holds the models directory. Trusted by the toolkit's own requests (with Node's roots and NODE_EXTRA_CA_CERTS), and delivered to the managers as config.toml's tls-ca-file.",
      ),
    proxy: z
      .strictObject({
        https: proxyUrl.optional().describe("Proxy for https:// destinations, such as http://proxy.corp.example:3128."),
        http: proxyUrl.optional().describe("Proxy for plain http:// destinations. When omitted, the https proxy."),
        no_proxy: z
          .array(z.string().regex(/^[A-Za-z0-9.*:\[\]/_-]+$/, "a host, .domain, IP, CIDR or host:port"))
          .default([])
          .describe("Destinations reached directly: host names, .domain suffixes, IPs, CIDRs (for gitlab-runner and Docker), \"*\"."),
      })
      .optional()
      .describe("The corporate HTTP(S) proxy: used by the toolkit's GitLab requests, and on the managers by gitlab-runner, Docker and package installs at boot."),
    clone_url: z
      .url({ protocol: /^https?$/, error: "an http(s) URL jobs clone through, such as https://gitlab-internal.example.com" })
      .refine((url) => !hasUserInfo(url), { message: "a URL without a user name or password" })
      .optional()
      .describe("Address jobs clone repositories from, when it differs from gitlab.url (config.toml clone_url). The same rules as url: error with a query, a fragment or an API path."),
  })
  .describe("The GitLab instance of this cell.");

const googleCloud = z.strictObject({
  provider: z.literal("google").describe("Google Cloud."),
  project: z
    .string()
    .regex(/^[a-z][a-z0-9-]{4,28}[a-z0-9]$/, "a Google Cloud project id: 6 to 30 lowercase letters, digits or '-'")
    // Resource Manager refuses project ids with restricted strings such as "google" and "ssl".
    .refine((id) => !/google|ssl/.test(id), { message: 'a Google Cloud project id without the restricted strings "google" and "ssl"' })
    .describe("Google Cloud project that holds the fleet."),
  region: z
    .string()
    .regex(/^[a-z]+-[a-z]+[0-9]+$/, "a Google Cloud region such as europe-west4")
    .describe("Region, for example europe-west4."),
  zones: z
    .array(z.string())
    .min(1)
    .describe("Zones of the region the managers and workers are spread over, for example [europe-west4-a, europe-west4-b]. Error: a zone of another region, or one listed twice. Warning: a zone not in the dated list lib/model/cloud-zones.ts (clouds add zones, so not an error), and a zone no manager slot reaches (slot i runs in zones[i mod zones]: list at most the largest managers.count)."),
});

const awsCloud = z.strictObject({
  provider: z.literal("aws").describe("Amazon Web Services."),
  region: z
    .string()
    .regex(/^[a-z]{2}(-gov)?-[a-z]+-[0-9]$/, "an AWS region such as eu-west-1")
    .describe("Region, for example eu-west-1."),
  availability_zones: z
    .array(z.string())
    .min(1)
    .describe("Availability zones of the region, for example [eu-west-1a, eu-west-1b]. Error: a zone of another region, or one listed twice. Warning: a zone not in the dated list lib/model/cloud-zones.ts (AWS adds zones, so not an error). With an existing VPC the subnets place the instances, not this list."),
  account_id: z
    .string()
    .regex(/^[0-9]{12}$/, "a 12-digit AWS account id")
    .optional()
    .describe("AWS account id, quoted (\"012345678901\"): unquoted, YAML reads it as a number and drops leading zeros. Scopes IAM ARNs and guards against applying to the wrong account. When omitted, the account of the caller's credentials."),
});

const cloud = z.discriminatedUnion("provider", [googleCloud, awsCloud]).describe("Where the fleet runs.");

/**
 * Cloud NAT port counts: with dynamic port allocation both must be powers of two, min at least 32 and max at
 * most 65536 (RouterNat enableDynamicPortAllocation, cloud.google.com/nat/docs/ports-and-addresses).
 * 256 ports hold a VM's usual connections to one destination; 8192 lets a burst of parallel pulls grow.
 */
export const DEFAULT_NAT_PORTS = { min_per_vm: 256, max_per_vm: 8192 } as const;
const natPortCount = z
  .number()
  .int()
  .refine((count) => count >= 32 && count <= 65536 && (count & (count - 1)) === 0, { message: "a power of two from 32 to 65536" });

const network = z
  .strictObject({
    cidr: cidr
      .optional()
      // The default applies only when `existing` is not set (see the transform below), so it is a hint, not a zod default.
      .meta({ default: DEFAULT_NETWORK_CIDR })
      .describe("Create a network with this primary range (VPC CIDR on AWS, subnet range on Google Cloud). Exclusive with `existing`; the default applies only when `existing` is not set. Error (exit 2): too small for every manager and its workers at max_instances (the message says how many addresses are needed; Google reserves 4 per subnet, AWS 5 per subnet, and on AWS only the private half of the range holds instances). Warning: a range outside RFC 1918 and RFC 6598 (public addresses it covers become unreachable)."),
    existing: z
      .strictObject({
        network: z.string().min(1).describe("Google Cloud network name or self link; AWS VPC id (vpc-...)."),
        subnets: z.array(z.string().min(1)).min(1).describe("Google Cloud subnetwork name or self link (one); AWS private subnet ids (one per availability zone). Warning on AWS: a count other than availability_zones' (the subnets decide the zones used)."),
      })
      .optional()
      .describe("Use an existing network instead of creating one. It must already route egress (NAT)."),
    nat: z
      .union([z.boolean(), z.literal("per-zone")], { error: 'true, false or "per-zone"' })
      .default(true)
      .describe(
        'Route egress through Cloud NAT / a NAT gateway; workers and managers have no public IPs. true: one NAT (on AWS one NAT gateway in the first zone, whose outage also cuts the other zones\' egress). "per-zone" (AWS): a NAT gateway and Elastic IP in every zone, each zone\'s private subnet routed through its own, so losing a zone leaves the others\' egress up; costs a gateway per zone. Cloud NAT is regional, so on Google Cloud "per-zone" is the same as true. false: no NAT.',
      ),
    nat_ports: z
      .strictObject({
        min_per_vm: natPortCount.default(DEFAULT_NAT_PORTS.min_per_vm).describe("Ports every VM holds (Cloud NAT minPortsPerVm)."),
        max_per_vm: natPortCount.default(DEFAULT_NAT_PORTS.max_per_vm).describe("Ports a busy VM may grow to (Cloud NAT maxPortsPerVm), more than min_per_vm."),
      })
      .refine((ports) => ports.max_per_vm > ports.min_per_vm, { message: "max_per_vm greater than min_per_vm", path: ["max_per_vm"] })
      .default(DEFAULT_NAT_PORTS)
      .describe(
        "Cloud NAT ports per VM, with dynamic port allocation (Google Cloud): each VM starts with min_per_vm ports and grows to max_per_vm as it opens connections, so a build pulling many layers from one registry does not drop SYNs (OUT_OF_RESOURCES). Powers of two. AWS NAT gateways allocate ports themselves.",
      ),
    nat_addresses: z
      .number()
      .int()
      .min(0)
      .max(300)
      .default(0)
      .describe(
        "Reserved static external addresses of Cloud NAT (Google Cloud). 0: automatic addresses, which Google adds and removes as the fleet grows, so GitLab's or a registry's allow-list breaks. N: N reserved addresses that stay; each serves 64512 / nat_ports.min_per_vm VMs. AWS NAT gateways always have an Elastic IP each.",
      ),
    public_ips: z.boolean().default(false).describe("Give runner managers public IPs. Workers never get one."),
    monitoring_cidrs: z
      .array(cidr)
      .default([])
      .describe(
        "Source ranges allowed to scrape runner manager metrics on port 9252. gitlab-runner serves /debug/jobs/list and /debug/pprof on the same listener (it has no metrics-only one), so these ranges reach those too. Empty: nothing may scrape; on AWS the listener then binds to loopback. Error: 0.0.0.0/0, or a range listed twice. Warning: a public range outside the cell's network.",
      ),
  })
  .default({ nat: true, nat_ports: DEFAULT_NAT_PORTS, nat_addresses: 0, public_ips: false, monitoring_cidrs: [] })
  .describe("The network the managers and workers run in: created for the cell, or an existing one.")
  // A network is created unless an existing one is named; give the created one its range here, with the other defaults.
  .transform((net) => (net.existing || net.cidr ? net : { ...net, cidr: DEFAULT_NETWORK_CIDR }));

const localState = z.strictObject({
  backend: z.literal("local").describe("A state file on the machine that runs provision; for local use only."),
  path: z
    .string()
    .optional()
    .describe(
      "State file path, relative to the workspace: the directory that holds the models directory (the current directory when the models are in ./models). When omitted, .state/terraform/<cell>.tfstate.",
    ),
});
const gcsState = z.strictObject({
  backend: z.literal("gcs").describe("A Google Cloud Storage bucket."),
  bucket: z.string().min(3).describe("Existing bucket that holds the state."),
  prefix: z.string().optional().describe("Object prefix of the cell's state. When omitted, runner-fleet/<cell>."),
});
const s3State = z.strictObject({
  backend: z.literal("s3").describe("An S3 bucket."),
  bucket: z.string().min(3).describe("Existing bucket that holds the state."),
  key_prefix: z.string().default("runner-fleet").describe("The state key is <key_prefix>/<cell>.tfstate."),
  region: z.string().regex(/^[a-z]{2}(-gov)?-[a-z]+-[0-9]$/, "an AWS region such as eu-west-1").describe("Region of the bucket."),
  locking: z
    .enum(["s3", "dynamodb"])
    .default("s3")
    .describe("s3: native S3 lock files (Terraform >= 1.10); dynamodb: a lock table named in dynamodb_table."),
  dynamodb_table: z.string().optional().describe("DynamoDB lock table; required when locking is dynamodb."),
});
const httpState = z.strictObject({
  backend: z.literal("http").describe("GitLab-managed Terraform state (the http backend)."),
  project_id: z
    .union([z.number().int().positive(), z.string().min(1)])
    .describe("GitLab project (id or full path) that holds the GitLab-managed Terraform state."),
  state_name: z.string().optional().describe("Name of the state in the project. When omitted, the cell id."),
  api_url: z
    .url({ protocol: /^https?$/, error: "an http(s) URL of a GitLab API, such as https://gitlab.example.com/api/v4" })
    .refine((url) => !hasUserInfo(url), { message: "a URL without a user name or password (the token is read from password_env)" })
    .optional()
    .describe("GitLab API v4 URL of the instance that holds the state, when it is not the cell's own (the models project's $CI_API_V4_URL). When omitted, <gitlab.url>/api/v4."),
  username: z
    .string()
    .min(1)
    .optional()
    .describe("A fixed state user name, used instead of username_env: gitlab-ci-token with the CI job token as password."),
  username_env: z.string().default("GITLAB_USER_LOGIN").describe("Environment variable holding the state user name."),
  password_env: z.string().default("GITLAB_TOKEN").describe("Environment variable holding the state token (never written to files)."),
});

const state = z
  .discriminatedUnion("backend", [localState, gcsState, s3State, httpState])
  .default({ backend: "local" })
  .describe("Terraform state backend of the cell's stack.");

const secrets = z
  .strictObject({
    store: z
      .enum(["local", "google-secret-manager", "aws-ssm"])
      .default("local")
      .describe("Where onboarding puts runner tokens and where managers read them at boot."),
    local_dir: z
      .string()
      .default(".state/secrets")
      .describe("Directory of the local store (files 0600, directory 0700), relative to the workspace: the directory that holds the models directory."),
    prefix: z
      .string()
      .regex(/^[a-zA-Z0-9_-]+$/, "letters, digits, '_' or '-'")
      .default("gitlab-runner")
      .describe("Name prefix of the secrets: <prefix>-<cell>-<shard> (Secret Manager) or /<prefix>/<cell>/<shard>/token (SSM)."),
  })
  .default({ store: "local", local_dir: ".state/secrets", prefix: "gitlab-runner" })
  .describe("Where runner tokens are kept between onboarding and the managers' boot.");

const managers = z
  .strictObject({
    count: z.number().int().min(1).max(10).default(2).describe("Runner manager VMs of the shard; each drives its own worker group."),
    machine_type: z.string().min(1).describe("The cloud's own machine type: e2-standard-2 on Google Cloud, t3.medium on AWS."),
    disk_size_gb: z.number().int().min(10).max(2000).default(50).describe("Boot disk size of each manager, in GB."),
    image: z
      .string()
      .optional()
      .describe("Manager image, of the machine type's architecture. When omitted, Ubuntu 24.04 LTS of the cloud, amd64 or arm64 (Graviton, T2A, C4A, N4A) as the machine type."),
    runner_version: z
      .string()
      .regex(/^[0-9]+\.[0-9]+\.[0-9]+$/, 'a pinned gitlab-runner version such as "19.5.0"')
      .describe("gitlab-runner version installed on the managers, pinned in full and quoted (\"19.5.0\"; an unquoted 19.5 is a number). From 19.2 a rotated token is taken live; before, the managers drain first. Error (exit 2): older than 16.11.0, which introduced `gitlab-runner fleeting install` the managers use to install the fleeting plugin."),
    concurrent: z.number().int().min(1).max(1000).default(20).describe("`concurrent` of each manager's config.toml: the jobs one manager runs at once. Warning either way it differs from workers.max_instances x capacity_per_instance: below it, workers beyond concurrent are never used (the message gives the effective capacity); above it, jobs wait for workers."),
    request_concurrency: z
      .number()
      .int()
      .min(1)
      .max(100)
      .optional()
      .describe(
        "`request_concurrency` of each manager's config.toml: requests for new jobs kept in flight at once. When omitted, one per 10 slots of concurrent, from 1 to 10 (gitlab-runner's own default of 1 takes free slots one long poll at a time: gitlab-runner issue 29666). Set by import from a config.toml that sets it.",
      ),
    fleeting_plugin: z
      .string()
      .refine((text) => EXACT_VERSION.test(text) || MIRROR_REFERENCE.test(text), {
        message: 'an exact plugin version such as "1.1.0", or a mirror\'s full OCI reference such as "registry.example.com/mirror/fleeting/aws:1.1.0"',
      })
      .optional()
      .describe(
        "The fleeting plugin, pinned: an exact version of GitLab's plugin for the cloud (aws, googlecloud), or a full OCI reference <registry>/<repository>/<name>:<version> of a mirror. Installed at the first boot and not fetched again while that version is present. When omitted, aws 1.1.0 or googlecloud 1.0.0.",
      ),
  })
  .describe("The shard's runner manager VMs.");

const workers = z
  .strictObject({
    machine_type: z.string().min(1).describe("The cloud's own machine type of the worker instances; of the managers' architecture (amd64 or arm64)."),
    image: z
      .string()
      .optional()
      .describe("Worker image, of the machine type's architecture; AWS: ami-... or resolve:ssm:<parameter>. Docker is installed at boot only when the image lacks it (apt or dnf). When omitted: on AWS the ECS-optimized Amazon Linux 2023 AMI (Docker included, newest at every launch); on Google Cloud Ubuntu 24.04 LTS, Docker installed at boot (name a baked image family here to skip that)."),
    disk_size_gb: z.number().int().min(10).max(4000).default(100).describe("Disk size of each worker instance, in GB."),
    username: z.string().regex(/^[a-z_][a-z0-9_-]*$/, "a Linux user name").default("ubuntu").describe("SSH user the runner connects as."),
    capacity_per_instance: z.number().int().min(1).max(64).default(1).describe("Jobs one worker runs at once."),
    max_use_count: z.number().int().min(0).default(1).describe("Jobs a worker runs before it is replaced; 0 is unlimited. Warnings: not 1 with docker.privileged (a privileged job changes the instance the next job gets); 1 with more than half the slots idle (each idle slot is a boot paid per job)."),
    max_instances: z.number().int().min(1).max(1000).describe("Upper bound of worker instances per manager."),
    spot: z.boolean().default(false).describe("Spot (AWS) or Spot/preemptible (Google Cloud) workers. Warnings: on AWS with no alternative_machine_types (one capacity pool); with a maximum_timeout above 2h (a long job is likelier to lose its worker); without spot_jobs_retried."),
    spot_jobs_retried: z
      .boolean()
      .default(false)
      .describe(
        "Say that the jobs this spot shard takes retry when their worker is reclaimed: `retry: { when: [runner_system_failure] }` in their .gitlab-ci.yml (a job whose worker vanishes fails as a runner system failure). Without it, spot: true gets a warning; with spot: false it has no effect.",
      ),
    alternative_machine_types: z
      .array(z.string().min(1))
      .max(19)
      .default([])
      .describe(
        "AWS spot workers: more instance types the worker group may launch besides machine_type (a mixed instances policy, price-capacity-optimized), so one reclaimed capacity pool does not stop the shard. Each of machine_type's architecture and at least its size: jobs and per-job limits are planned for machine_type. Google Cloud: not offered (instance flexibility needs a regional managed instance group; the googlecloud fleeting plugin drives zonal ones).",
      ),
  })
  .describe("The autoscaled worker instances that run the jobs (fleeting plugin of the cloud).");

/** A period is handed to gitlab-runner as written, so it is checked by gitlab-runner's own cron dialect; cronexpr's reason becomes the hint. */
const cronPeriod = z.string().superRefine((text, context) => {
  const parsed = parseCronexpr(text);
  if (!parsed.ok) context.addIssue({ code: "custom", message: `a cron expression in ${CRONEXPR_DIALECT}`, params: { hint: `cronexpr: ${parsed.reason}` } });
});

const policy = z.strictObject({
  periods: z
    .array(cronPeriod)
    .min(1)
    .default(["* * * * *"])
    .describe(
      `Periods during which the policy applies, in ${CRONEXPR_DIALECT}. "* 7-19 * * mon-fri" is weekdays 07:00-19:59.`,
    ),
  timezone: z
    .string()
    .superRefine((text, context) => {
      if (isValidTimeZone(text)) return;
      const nearest = closestTimeZone(text);
      context.addIssue({ code: "custom", message: 'an IANA time zone such as "UTC" or "Europe/Berlin"', params: { hint: nearest ? `did you mean "${nearest}"?` : undefined } });
    })
    .default("UTC")
    .describe("IANA time zone of the periods; an unknown one is an error (exit 2) with the nearest known zone."),
  idle_count: z.number().int().min(0).default(0).describe("Idle job slots kept ready (counted in jobs, not machines). Error: above max_instances x capacity_per_instance. Warning: above half of that with workers.max_use_count 1."),
  idle_time: goDuration.default("20m").describe("How long an idle instance is kept: a quoted Go duration such as \"20m\" (a bare 20 is a number, refused with that hint)."),
  scale_factor: z.number().min(0).max(10).default(0).describe("Idle capacity as a share of in-use capacity."),
  scale_factor_limit: z.number().int().min(0).optional().describe("Upper bound of the idle capacity scale_factor adds. When omitted, no bound. Warnings: set with scale_factor 0 (no effect), or above max_instances x capacity_per_instance (the slots are the real bound)."),
  preemptive_mode: z
    .boolean()
    .optional()
    .describe(
      "true: a manager asks GitLab for a job only once an idle slot is ready (jobs wait in GitLab's queue while workers boot, then start at once); false: it takes jobs at once and each waits for its worker. When omitted, gitlab-runner's default: on when idle_count is above 0 (common/config.go PreemptiveModeEnabled). Error: set with managers.runner_version below 18.1, which ignores it.",
    ),
});

const docker = z
  .strictObject({
    image: z.string().min(1).default("ubuntu:24.04").describe("Default job image."),
    privileged: z.boolean().default(false).describe("Privileged job containers. Leave off unless Docker-in-Docker is required. Error (security) with workers.capacity_per_instance above 1, unless docker.privileged_shares_worker is true: jobs running at once on one privileged Docker host can take over each other's containers, job tokens and artifacts. Warning (security) with workers.max_use_count other than 1: the next job runs on an instance a privileged job could change."),
    privileged_shares_worker: z
      .boolean()
      .default(false)
      .describe(
        "Opt-in: accept docker.privileged with workers.capacity_per_instance above 1. Then several jobs, possibly of different projects, run at once on one privileged Docker host, and any of them can take over the others' containers, job tokens and artifacts. Only for a shard whose tags are given to projects that trust each other.",
      ),
    volumes: z.array(z.string()).default(["/cache"]).describe("Volumes mounted into job containers (Docker executor `volumes`). Warnings (security): the Docker socket (a job controls the worker's daemon) and host paths (host:container; jobs share the worker's files)."),
    pull_policy: z
      .array(z.enum(["always", "if-not-present", "never"]))
      .min(1)
      .optional()
      .describe(
        "Image pull policies, tried in order; also config.toml's allowed_pull_policies, so a job cannot ask for another. When omitted: [always] where a worker's image cache serves more than one job (workers.max_use_count other than 1, or capacity_per_instance above 1), else [always, if-not-present]. Warning (security): if-not-present or never on such workers (gitlab-runner falls back to the cache after any failed pull, an authentication failure included, so a job could run another project's private image).",
      ),
    job_limits: z
      .strictObject({
        cpus: z.number().gt(0).max(448).describe("CPUs each job container may use (Docker --cpus), such as 3.5."),
        memory_mb: z.number().int().min(128).describe("Memory limit of each job container, in MiB (Docker --memory)."),
        service_memory_mb: z.number().int().min(64).optional().describe("Memory limit of each service container, in MiB. When omitted, a third of memory_mb."),
      })
      .optional()
      .describe(
        "Per-job limits on a worker that runs several jobs (capacity_per_instance > 1), so one job's memory spike cannot take the others, dockerd or sshd with it. When omitted and capacity_per_instance > 1, derived from the machine type (vCPUs and memory split over the jobs, 10% or 1 GiB kept for the host); a machine type whose size runner-fleet does not know needs them set.",
      ),
    registry_mirror: z
      .url({ protocol: /^https?$/, error: "an http(s) URL of a Docker Hub mirror, such as https://mirror.gcr.io" })
      // dockerd refuses a mirror with a path, query, fragment or credentials (moby registry/config.go ValidateMirror).
      .refine((url) => /^https?:\/\/[^/?#@]+\/?$/.test(url), {
        message: "a mirror URL of a host only (no path, query or credentials), as dockerd's registry-mirrors takes it, such as https://mirror.gcr.io",
      })
      .optional()
      .describe(
        "Docker Hub mirror (pull-through cache) the workers' Docker daemon asks first (daemon.json registry-mirrors): Google's https://mirror.gcr.io, or a registry the team runs. Keeps the fleet's pulls off Docker Hub's anonymous limit, which counts per NAT address. When omitted, every pull goes to Docker Hub.",
      ),
  })
  .default({ image: "ubuntu:24.04", privileged: false, privileged_shares_worker: false, volumes: ["/cache"] })
  .describe("Docker executor settings of the jobs.");

const cache = z
  .strictObject({
    enabled: z.boolean().default(true).describe("Give the shard a distributed cache bucket (GCS or S3)."),
    expiry_days: z.number().int().min(1).max(3650).default(14).describe("Cache objects are deleted this many days after upload."),
    shared: z.boolean().default(true).describe("Share the cache between the shard's managers."),
  })
  .default({ enabled: true, expiry_days: 14, shared: true })
  .describe("The shard's distributed job cache.");

const tagText = z.string().regex(/^[^\u0000-\u001f\u007f]*$/, "a tag without control characters or line breaks");

const shard = z.strictObject({
  name: storeSafeLabel.describe("Shard name, unique in the cell; part of resource names. No \"--\"."),
  renamed_from: storeSafeLabel
    .optional()
    .describe(
      "The name this shard had before it was renamed. Its Terraform resources move to the new name (moved blocks), its cloud resources, secret and labels keep the names they were created under (so the plan has no destroy), and onboard renames its GitLab runner in place, keeping its token. Keep it for as long as the shard exists; a renamed shard is not renamed a second time. Error: the name of another shard of the cell, or this shard's own name.",
    ),
  description: z.string().max(1024).optional().describe("Runner description in GitLab. When omitted, <cell>-<shard>."),
  tags: z
    // `tags: linux, docker` (one string) is what GitLab's own tag_list accepts: split on commas below.
    .union([tagText, z.array(tagText.max(255)).max(50)], {
      error: 'a list of tags such as [docker, linux], or one string of comma-separated tags such as "docker, linux"',
    })
    .default([])
    // GitLab splits tags on commas, trims them and drops blanks and duplicates; so does the model,
    // so that onboard compares what GitLab will store and converges.
    .transform((tags) => normaliseTags(typeof tags === "string" ? [tags] : tags))
    .describe(
      "Runner tags; jobs with these tags run here. A list, or one string of comma-separated tags (\"docker, linux\"). Normalised as GitLab does: split on commas, trimmed, blanks and duplicates dropped. At most 49: onboard adds the cell's own tag runner-fleet:<cell> (GitLab keeps 50), and tags starting with runner-fleet: are reserved for it. Warning: the same tag twice (likely a typo for another).",
    ),
  run_untagged: z.boolean().default(false).describe("Also run jobs without tags."),
  locked: z.boolean().default(false).describe("Lock a project runner to its current projects."),
  access_level: z
    .enum(["not_protected", "ref_protected"])
    .default("not_protected")
    .describe("ref_protected: run only jobs of protected branches and tags."),
  maximum_timeout: goDuration.default("1h").describe("Longest job the runner accepts: a quoted Go duration such as \"3h\". Error: below 10m, GitLab's lower bound (\"Maximum timeout needs to be at least 10 minutes\"). Warning: a month or more (GitLab caps project job timeouts below a month, so it never applies)."),
  paused: z.boolean().default(false).describe("Register the runner paused: it takes no jobs until resumed."),
  runner_type: z.enum(["instance", "group", "project"]).default("instance").describe("Scope of the runner in GitLab."),
  group_id: z.number().int().positive().optional().describe("Required when runner_type is group."),
  project_id: z.number().int().positive().optional().describe("Required when runner_type is project."),
  allow_unknown_machine_type: z
    .boolean()
    .default(false)
    .describe(
      "Accept a managers or workers machine type missing from the dated table of families and their sizes (data/machine-types.json): an error (exit 2) otherwise, with the nearest types that exist, since a type that does not exist fails only at apply. When true, a warning.",
    ),
  managers,
  workers,
  autoscaling: z
    .strictObject({
      policies: z
        .array(policy)
        .min(1)
        .describe("Autoscaler policies ([[runners.autoscaler.policy]]); where several apply, the last one wins. Warning: two policies with the same periods and time zone (the earlier never applies)."),
    })
    .default({ policies: [{ periods: ["* * * * *"], timezone: "UTC", idle_count: 0, idle_time: "20m", scale_factor: 0 }] })
    .describe("How the workers scale: idle capacity by time of day."),
  docker,
  cache,
});

const thresholds = z
  .strictObject({
    manager_absent_for: goDuration.default("5m").describe("Alert when a manager's metrics are absent this long."),
    job_failure_ratio: z.number().gt(0).max(1).default(0.25).describe("Alert when this share of jobs fails over 15 minutes."),
    concurrency_saturation: z.number().gt(0).max(1).default(0.9).describe("Alert when running jobs reach this share of `concurrent`."),
    workers_near_max: z.number().gt(0).max(1).default(0.9).describe("Alert when workers reach this share of max_instances."),
  })
  .default({ manager_absent_for: "5m", job_failure_ratio: 0.25, concurrency_saturation: 0.9, workers_near_max: 0.9 })
  .describe("When the alerts fire.");

const monitoring = z
  .strictObject({
    enabled: z.boolean().default(true).describe("Create the fleet's dashboards and alert policies (Cloud Monitoring or CloudWatch)."),
    notifications: z
      .strictObject({
        emails: z.array(z.email()).default([]).describe("Email addresses the alerts are sent to."),
        webhooks: z
          .array(z.url({ protocol: /^https$/, error: "an https URL" }))
          .default([])
          .describe("HTTPS endpoints the alerts are posted to."),
        channels: z.array(z.string().min(1)).default([]).describe("Existing channel ids: Google notification channel names or SNS topic ARNs."),
      })
      .default({ emails: [], webhooks: [], channels: [] })
      .describe("Where alerts go."),
    thresholds,
  })
  .default({
    enabled: true,
    notifications: { emails: [], webhooks: [], channels: [] },
    thresholds: { manager_absent_for: "5m", job_failure_ratio: 0.25, concurrency_saturation: 0.9, workers_near_max: 0.9 },
  })
  .describe("Metrics, dashboards and alerts of the fleet.");

/** A price with the day and the source it was read from (what `runner-fleet prices --write` records). */
const datedPrice = z
  .strictObject({
    usd: z.number().positive().describe("On-demand price per hour in USD."),
    as_of: z
      .string()
      .regex(/^\d{4}-\d{2}(-\d{2})?$/, { error: "a date such as 2026-11-29 (or a month, 2026-11)" })
      .describe("The day (or month) the price was read from its source."),
    source: z.string().min(1).describe("Where the price was read: the API and what it was asked, or the page."),
  })
  .describe("A dated price with its source.");

const cost = z
  .strictObject({
    hourly_prices: z
      .record(z.string().min(1), z.union([z.number().positive(), datedPrice]))
      .default({})
      .describe(
        "On-demand price per hour in USD by machine type, in this cell's region. Replaces the price table's (data/prices.json): for negotiated or committed-use prices, and for machine types the table does not list. A number is shown as the model's own, undated; `runner-fleet prices --write` fills the types nobody priced from the cloud's price API as { usd, as_of, source }.",
      ),
    spot_discount: z
      .number()
      .min(0)
      .lt(1)
      .optional()
      .describe("Share of the on-demand price that spot workers save, for example 0.65. When omitted, the price table's figure for the cloud."),
  })
  .default({ hourly_prices: {} })
  .describe("Inputs of the monthly cost estimate the capacity summary shows (provision --dry-run, review).");

export const runnerModelSchema = z
  .strictObject({
    cell: z
      .strictObject({
        id: storeSafeLabel.describe("Cell id: names the stack, prefixes resources and is a label on every one. No \"--\"."),
        labels: labels.describe(
          "Labels (Google Cloud) or tags (AWS) applied to every resource, by the cloud's own rules (an error otherwise, exit 2). Google Cloud: keys 1-63 lowercase letters, digits, '_' or '-', starting with a letter; values at most 63 of the same. AWS: keys 1-128 and values at most 256 letters, digits, spaces or _ . : / = + - @; no \"aws:\" prefix.",
        ),
      })
      .describe("The cell: one GitLab instance's runner fleet in one cloud region."),
    gitlab,
    cloud,
    network,
    state,
    secrets,
    shards: z.array(shard).min(1).describe("Runner shards: each is one GitLab runner with its own managers and workers."),
    monitoring,
    cost,
  })
  .meta({
    title: "GitLab cell runner model",
    description: "One cell's runner fleet: the GitLab instance, the cloud, and the runner shards to provision.",
  });

/** The model as written in YAML, before defaults. */
export type RunnerModelInput = z.input<typeof runnerModelSchema>;
/** The model with every default applied. */
export type RunnerModel = z.output<typeof runnerModelSchema>;
export type Shard = RunnerModel["shards"][number];
export type AutoscalingPolicy = Shard["autoscaling"]["policies"][number];
export type CloudConfig = RunnerModel["cloud"];
export type GoogleCloudConfig = Extract<CloudConfig, { provider: "google" }>;
export type AwsCloudConfig = Extract<CloudConfig, { provider: "aws" }>;
export type StateConfig = RunnerModel["state"];
export type SecretStoreKind = RunnerModel["secrets"]["store"];
