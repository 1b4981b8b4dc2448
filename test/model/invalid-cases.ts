/**
 * Invalid models, each a small change to a valid base, with where the error must point.
 * Positions were checked by hand against the YAML text: they are the node the user has to edit.
 */
export const BASE_MODEL = `cell:
  id: cell-9
gitlab:
  url: https://gitlab.example.com
cloud:
  provider: google
  project: acme-runners-9
  region: europe-west4
  zones: [europe-west4-a]
shards:
  - name: small
    tags: [docker]
    managers:
      machine_type: e2-standard-2
      runner_version: 18.5.0
    workers:
      machine_type: n2d-standard-2
      max_instances: 10
`;

/** The base with line `line` (1-based) replaced by `text` (which may hold several lines). */
export function withLine(line: number, text: string): string {
  const lines = BASE_MODEL.split("\n");
  lines.splice(line - 1, 1, text);
  return lines.join("\n");
}

/** The base with `text` appended at the end. */
export function withAppended(text: string): string {
  return `${BASE_MODEL}${text}\n`;
}

export interface InvalidCase {
  readonly name: string;
  /** File content; a Buffer for binary cases; undefined for "no file at all". */
  readonly content: string | Buffer | undefined;
  readonly line: number;
  readonly column: number;
  /** Text the message must contain (the expectation or the received value). */
  readonly mentions: readonly string[];
}

const AWS_BASE = BASE_MODEL.replace(
  "  provider: google\n  project: acme-runners-9\n  region: europe-west4\n  zones: [europe-west4-a]",
  "  provider: aws\n  region: eu-west-1\n  availability_zones: [eu-west-1a]",
).replace("e2-standard-2", "t3.medium").replace("n2d-standard-2", "m7i.large");

export const INVALID_CASES: readonly InvalidCase[] = [
  { name: "a YAML syntax error (unclosed flow sequence)", content: withLine(9, "  zones: [europe-west4-a"), line: 9, column: 10, mentions: ['valid YAML: a closing ] for the list that opens with "[" here, on line 9'] },
  { name: "a YAML syntax error (bad indentation)", content: withLine(4, "    url: https://gitlab.example.com\n   oops: 1"), line: 5, column: 1, mentions: ["valid YAML"] },
  { name: "a duplicate key", content: withLine(2, "  id: cell-9\n  id: cell-10"), line: 3, column: 3, mentions: ["valid YAML", "unique"] },
  { name: "an empty file", content: "", line: 1, column: 1, mentions: ["empty document"] },
  { name: "a file with only comments", content: "# nothing here\n", line: 1, column: 1, mentions: ["empty document"] },
  { name: "a top-level list", content: "- cell: x\n- gitlab: y\n", line: 1, column: 1, mentions: ["mapping at the top level", "a list of 2"] },
  { name: "a top-level scalar", content: "just text\n", line: 1, column: 1, mentions: ["mapping at the top level", "text (9 characters)"] },
  { name: "a binary file", content: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01, 0xff, 0xfe]), line: 1, column: 1, mentions: ["UTF-8 YAML text file", "binary"] },
  { name: "a missing file", content: undefined, line: 1, column: 1, mentions: ["an existing model file"] },
  { name: "a missing required section (cloud)", content: BASE_MODEL.replace(/cloud:\n(  .*\n){4}/, ""), line: 1, column: 1, mentions: ["cloud", "required"] },
  { name: "a wrong type (max_instances as text)", content: withLine(18, "      max_instances: ten"), line: 18, column: 22, mentions: ["a number", '"ten"'] },
  // A string of tags is accepted (split on commas, as GitLab does); a number is not.
  { name: "a wrong type (tags as a number)", content: withLine(12, "    tags: 5"), line: 12, column: 11, mentions: ["a list of tags", "comma-separated", "received 5"] },
  { name: "an unknown top-level key with a suggestion", content: withAppended("monitorng:\n  enabled: true"), line: 19, column: 1, mentions: ['unknown key "monitorng"', 'did you mean "monitoring"'] },
  { name: "an unknown nested key with a suggestion", content: withLine(18, "      max_instance: 10"), line: 18, column: 7, mentions: ['unknown key "max_instance"', 'did you mean "max_instances"'] },
  { name: "an unknown key in the cloud union", content: withLine(9, "  zones: [europe-west4-a]\n  zone: europe-west4-b"), line: 10, column: 3, mentions: ['unknown key "zone"', 'did you mean "zones"'] },
  { name: "an out-of-range value (managers.count 0)", content: withLine(15, "      runner_version: 18.5.0\n      count: 0"), line: 16, column: 14, mentions: ["a number >= 1", "received 0"] },
  { name: "an out-of-range value (disk too large)", content: withLine(18, "      max_instances: 10\n      disk_size_gb: 99999"), line: 19, column: 21, mentions: ["<= 4000", "99999"] },
  { name: "an unknown cloud provider", content: withLine(6, "  provider: azure"), line: 6, column: 13, mentions: ['"google", "aws"', '"azure"'] },
  { name: "an invalid cell id", content: withLine(2, "  id: Cell_9"), line: 2, column: 7, mentions: ["DNS label", '"Cell_9"'] },
  // "aa" + "bb--cc" and "aa--bb" + "cc" would share the local store file "aa--bb--cc.json".
  { name: "a cell id with \"--\"", content: withLine(2, "  id: cell--9"), line: 2, column: 7, mentions: ['without "--"', '"cell--9"'] },
  { name: "a shard name with \"--\"", content: withLine(11, "  - name: small--a"), line: 11, column: 11, mentions: ['without "--"', '"small--a"'] },
  { name: "an invalid GitLab URL", content: withLine(4, "  url: gitlab.example.com"), line: 4, column: 8, mentions: ["http(s) URL", '"gitlab.example.com"'] },
  { name: "a zone outside the region", content: withLine(9, "  zones: [us-east1-b]"), line: 9, column: 11, mentions: ["zone of region europe-west4", '"us-east1-b"'] },
  { name: "a region misspelt beside its zones", content: withLine(8, "  region: europe-wset4"), line: 8, column: 11, mentions: ["cloud.region: expected the Google Cloud region that cloud.zones are in (europe-west4 holds europe-west4-a", 'received "europe-wset4" (did you mean "europe-west4"?)'] },
  { name: "a number where a duration is wanted", content: withLine(12, "    tags: [docker]\n    maximum_timeout: 3600"), line: 13, column: 22, mentions: ['shards[0].maximum_timeout: expected a string, received 3600', 'write "1h": YAML reads the unquoted 3600 as a number'] },
  { name: "duplicate shard names", content: withAppended(`  - name: small
    tags: [docker]
    managers: {machine_type: e2-standard-2, runner_version: 18.5.0}
    workers: {machine_type: n2d-standard-2, max_instances: 5}`).replace("max_instances: 10\n", "max_instances: 10\n"), line: 19, column: 11, mentions: ["unique", "shards[0]", '"small"'] },
  { name: "a shard renamed from its own name", content: withLine(11, "  - name: small\n    renamed_from: small"), line: 12, column: 19, mentions: ["the shard's former name, not its name", '"small"'] },
  {
    name: "a shard renamed from the name of a shard the cell still has",
    content: withAppended(`  - name: big
    renamed_from: small
    tags: [big]
    managers: {machine_type: e2-standard-2, runner_version: 18.5.0}
    workers: {machine_type: n2d-standard-2, max_instances: 5}`),
    line: 20,
    column: 19,
    mentions: ["a former name no current shard has", "shards[0] is named small", '"small"'],
  },
  {
    name: "two shards renamed from one name",
    content: withLine(11, "  - name: small\n    renamed_from: old").concat(`  - name: big
    renamed_from: old
    tags: [big]
    managers: {machine_type: e2-standard-2, runner_version: 18.5.0}
    workers: {machine_type: n2d-standard-2, max_instances: 5}
`),
    line: 21,
    column: 19,
    mentions: ["a former name of one shard only", "shards[0] was renamed from it already", '"old"'],
  },
  { name: "a group runner without a group id", content: withLine(12, "    tags: [docker]\n    runner_type: group"), line: 11, column: 5, mentions: ["group id when runner_type is group"] },
  { name: "idle count above what the workers can hold", content: withAppended("    autoscaling:\n      policies:\n        - idle_count: 50"), line: 21, column: 23, mentions: ["idle_count <=", "= 10", "received 50"] },
  { name: "a negative price override", content: withAppended("cost:\n  hourly_prices:\n    n2d-standard-2: -1"), line: 21, column: 21, mentions: ["received -1"] },
  { name: "a spot discount of 100%", content: withAppended("cost:\n  spot_discount: 1"), line: 20, column: 18, mentions: ["< 1", "received 1"] },
  { name: "a bad idle_time duration", content: withAppended("    autoscaling:\n      policies:\n        - idle_time: 20 minutes"), line: 21, column: 22, mentions: ["Go duration", '"20 minutes"'] },
  { name: "a bad maximum_timeout (too short)", content: withLine(12, "    tags: [docker]\n    maximum_timeout: 5m"), line: 13, column: 22, mentions: ["at least 10m", '"5m"'] },
  { name: "a bad cron period", content: withAppended('    autoscaling:\n      policies:\n        - periods: ["every day"]'), line: 21, column: 21, mentions: ["cron expression", "gorhill/cronexpr", '"every day"', "cronexpr: missing field(s)"] },
  { name: "a cron period gitlab-runner's dialect refuses (a step past 59)", content: withAppended('    autoscaling:\n      policies:\n        - periods: ["*/60 * * * *"]'), line: 21, column: 21, mentions: ['"*/60 * * * *"', "cronexpr: invalid interval */60"] },
  { name: "an unknown time zone", content: withAppended("    autoscaling:\n      policies:\n        - timezone: Mars/Olympus"), line: 21, column: 21, mentions: ["IANA time zone", '"Mars/Olympus"'] },
  { name: "a bad CIDR", content: withAppended("network:\n  cidr: 10.0.0.300/16"), line: 20, column: 9, mentions: ["CIDR", '"10.0.0.300/16"'] },
  { name: "a CIDR with host bits set", content: withAppended("network:\n  cidr: 10.0.0.1/16"), line: 20, column: 9, mentions: ["no host bits", '"10.0.0.1/16"'] },
  { name: "a secret store of the other cloud", content: withAppended("secrets:\n  store: aws-ssm"), line: 20, column: 10, mentions: ["google-secret-manager or local", '"aws-ssm"'] },
  { name: "untagged jobs refused and no tags", content: withLine(12, "    tags: []"), line: 12, column: 11, mentions: ["at least one tag"] },
  // onboard adds runner-fleet:<cell> to every runner (lib/model/cell-tag.ts): a shard naming it would route jobs by the tool's index.
  { name: "a tag in the tool's reserved namespace", content: withLine(12, "    tags: [docker, Runner-Fleet:cell-1]"), line: 12, column: 11, mentions: ['do not start with "runner-fleet:"', '["Runner-Fleet:cell-1"]'] },
  { name: "50 tags (GitLab keeps 50, and the cell's tag is one)", content: withLine(12, `    tags: [${Array.from({ length: 50 }, (_, index) => `t${index}`).join(", ")}]`), line: 12, column: 11, mentions: ["at most 49 tags", "50 tags"] },
  { name: "an AWS instance type on Google Cloud", content: withLine(17, "      machine_type: m7i.large"), line: 17, column: 21, mentions: ["Google Cloud machine type", '"m7i.large"'] },
  { name: "a Google machine type on AWS", content: AWS_BASE.replace("m7i.large", "n2d-standard-2"), line: 16, column: 21, mentions: ["EC2 instance type", '"n2d-standard-2"'] },
  { name: "an invalid access level", content: withLine(12, "    tags: [docker]\n    access_level: protected"), line: 13, column: 19, mentions: ['"not_protected", "ref_protected"', '"protected"'] },
  { name: "a cell id that differs from the file name", content: withLine(2, "  id: cell-10"), line: 2, column: 7, mentions: ['"cell-9", the file\'s name', '"cell-10"'] },
  { name: "an AWS VPC range too large", content: AWS_BASE + "network:\n  cidr: 10.0.0.0/12\n", line: 19, column: 9, mentions: ["VPC range from /16", '"10.0.0.0/12"'] },
  { name: "an S3 backend with DynamoDB locking and no table", content: withAppended("state:\n  backend: s3\n  bucket: tf-state\n  region: eu-west-1\n  locking: dynamodb"), line: 20, column: 3, mentions: ["DynamoDB table"] },
  { name: "a Google project id with a restricted string", content: withLine(7, "  project: acme-google-9"), line: 7, column: 12, mentions: ["restricted strings", '"acme-google-9"'] },
  { name: "a shard name that puts \"google\" into a bucket name", content: withLine(11, "  - name: google-builds"), line: 11, column: 11, mentions: ['Cloud Storage bucket name', 'contain "google"', '"google-builds"'] },
  { name: "an SSM secret prefix AWS reserves", content: AWS_BASE + "secrets:\n  store: aws-ssm\n  prefix: ssm-runners\n", line: 20, column: 11, mentions: ["SSM parameter name", '"aws" or "ssm"', '"ssm-runners"'] },
  { name: "a plain http gitlab.url on another host", content: withLine(4, "  url: http://gitlab.example.com"), line: 4, column: 8, mentions: ["an https:// URL", "clear text", "allow_insecure_http_token_in_clear_text", '"http://gitlab.example.com"'] },
  { name: "a proxy URL carrying a password", content: withLine(4, "  url: https://gitlab.example.com\n  proxy:\n    https: http://me:secret@proxy.corp:3128"), line: 6, column: 12, mentions: ["without a user name or password"] },
  { name: "a request timeout of a day", content: withLine(4, "  url: https://gitlab.example.com\n  request_timeout: 24h"), line: 5, column: 20, mentions: ["from 1s to 10m", '"24h"'] },
  { name: "a token_env naming the CI job token", content: withLine(4, "  url: https://gitlab.example.com\n  token_env: CI_JOB_TOKEN"), line: 5, column: 14, mentions: ["not one of GitLab's predefined CI_* variables", '"CI_JOB_TOKEN"'] },
  { name: "a floating fleeting plugin constraint", content: withLine(15, "      runner_version: 18.5.0\n      fleeting_plugin: \"1\""), line: 16, column: 24, mentions: ["an exact plugin version", '"1"'] },
  { name: "a mirror plugin reference without an exact version", content: withLine(15, "      runner_version: 18.5.0\n      fleeting_plugin: registry.example.com/mirror/googlecloud:latest"), line: 16, column: 24, mentions: ["full OCI reference", '"registry.example.com/mirror/googlecloud:latest"'] },
  { name: "a registry mirror with a path (dockerd refuses it)", content: withAppended("    docker:\n      registry_mirror: https://europe-docker.pkg.dev/acme/dockerhub"), line: 20, column: 24, mentions: ["a mirror URL of a host only", '"https://europe-docker.pkg.dev/acme/dockerhub"'] },
  { name: "alternative machine types on Google Cloud (zonal groups have no instance flexibility)", content: withLine(18, "      max_instances: 10\n      spot: true\n      alternative_machine_types: [n2-standard-2]"), line: 20, column: 34, mentions: ["regional managed instance group", '["n2-standard-2"]'] },
  { name: "alternative instance types on an on-demand AWS shard", content: AWS_BASE.replace("max_instances: 10", "max_instances: 10\n      alternative_machine_types: [m6i.large]"), line: 18, column: 34, mentions: ["only with workers.spot: true"] },
  { name: "an arm64 alternative for amd64 spot workers", content: AWS_BASE.replace("max_instances: 10", "max_instances: 10\n      spot: true\n      alternative_machine_types: [m6i.large, m7g.large]"), line: 19, column: 46, mentions: ["an amd64 instance type", '"m7g.large"'] },
  { name: "two jobs per worker on a machine type of unknown size, without job limits", content: withLine(17, "      machine_type: n1-standard-8\n      capacity_per_instance: 2"), line: 18, column: 30, mentions: ["docker.job_limits (cpus, memory_mb)", "n1-standard-8", "received 2"] },
];
