/**
 * What a newcomer met writing models from scratch (issue 23): each point has an accepted and a
 * refused (or warned) example, with the message checked.
 */
import { parseModel } from "../../lib/model/load";
import { formatIssue, type ModelIssue } from "../../lib/model/issues";
import { BASE_MODEL, withAppended, withLine } from "./invalid-cases";

const AWS_BASE = BASE_MODEL.replace(
  "  provider: google\n  project: acme-runners-9\n  region: europe-west4\n  zones: [europe-west4-a]",
  "  provider: aws\n  region: us-east-1\n  availability_zones: [us-east-1a]",
).replace("e2-standard-2", "t3.medium").replace("n2d-standard-2", "m7i.large");

/** Every message of a model, errors and warnings, as the user reads them. */
function messagesOf(text: string, expectedCellId?: string): { errors: string[]; warnings: string[] } {
  try {
    const loaded = parseModel(text, "cell-9.yaml", expectedCellId);
    // The base model's own warning (concurrent 20 above 10 worker slots) is not what these tests are about.
    const warnings = loaded.warnings.filter((issue) => issue.severity === "warning" && issue.path.at(-1) !== "concurrent");
    return { errors: [], warnings: warnings.map(formatIssue) };
  } catch (error) {
    const issues = (error as { issues?: ModelIssue[] }).issues;
    if (!issues) throw error;
    return { errors: issues.map(formatIssue), warnings: [] };
  }
}

describe("zones that do not exist", () => {
  it("warns about us-east-1g and us-central1-e, naming the zones that exist and the list's date", () => {
    const aws = messagesOf(AWS_BASE.replace("[us-east-1a]", "[us-east-1a, us-east-1g]"));
    expect(aws.errors).toEqual([]);
    expect(aws.warnings.join("\n")).toContain('cell-9.yaml:8:36: warning: cloud.availability_zones[1]: expected a zone that exists in us-east-1: us-east-1a, us-east-1b, us-east-1c, us-east-1d, us-east-1e, us-east-1f (the list checked on');
    expect(aws.warnings.join("\n")).toContain('received "us-east-1g"');
    const google = messagesOf(BASE_MODEL.replace("region: europe-west4\n  zones: [europe-west4-a]", "region: us-central1\n  zones: [us-central1-e]"));
    expect(google.warnings.join("\n")).toContain("us-central1-a, us-central1-b, us-central1-c, us-central1-f");
    expect(google.warnings.join("\n")).toContain('received "us-central1-e"');
  });

  it("accepts zones the list holds, and leaves regions it does not list alone", () => {
    expect(messagesOf(AWS_BASE.replace("[us-east-1a]", "[us-east-1a, us-east-1f]")).warnings.join("\n")).not.toContain("a zone that exists");
    expect(messagesOf(BASE_MODEL.replace("zones: [europe-west4-a]", "zones: [europe-west4-a, europe-west4-c]").replace("      runner_version", "      count: 2\n      runner_version")).warnings).toEqual([]);
  });
});

describe("cell.labels by the cloud's own rules", () => {
  it("accepts AWS tag keys and values that Google would refuse", () => {
    const result = messagesOf(AWS_BASE.replace("  id: cell-9", "  id: cell-9\n  labels:\n    CostCenter: Platform CI\n    team/owner: a.b@example.com"));
    expect(result.errors).toEqual([]);
  });

  it("refuses a Google label key with capitals, naming the key, not the value", () => {
    const { errors } = messagesOf(BASE_MODEL.replace("  id: cell-9", "  id: cell-9\n  labels:\n    CostCenter: platform"));
    expect(errors).toEqual([
      'cell-9.yaml:4:17: cell.labels.CostCenter: expected a Google Cloud label key: 1 to 63 lowercase letters, digits, \'_\' or \'-\', starting with a lowercase letter, received the key "CostCenter"',
    ]);
  });

  it("refuses an AWS tag key with the reserved aws: prefix and a value with characters AWS refuses", () => {
    const { errors } = messagesOf(AWS_BASE.replace("  id: cell-9", '  id: cell-9\n  labels:\n    "aws:team": x\n    team: "a;b"'));
    expect(errors.join("\n")).toContain('cell.labels.aws:team: expected an AWS tag key without the prefix "aws:"');
    expect(errors.join("\n")).toContain('cell.labels.team: expected an AWS tag value: at most 256 letters, digits, spaces or _ . : / = + - @, received "a;b" for the key "team"');
    expect(errors.join("\n")).not.toContain("Invalid key in record");
  });
});

describe("type errors give the format and the value that passes", () => {
  it.each([
    ["idle_time: 20", withAppended("    autoscaling:\n      policies:\n        - idle_time: 20"), 'a Go duration with its unit, such as "20m"', 'write "20m": YAML reads the unquoted 20 as a number'],
    ["maximum_timeout: 3600", withLine(12, "    tags: [docker]\n    maximum_timeout: 3600"), "a Go duration", 'write "1h": YAML reads the unquoted 3600 as a number'],
    ["runner_version: 18.5", withLine(15, "      runner_version: 18.5"), 'a full gitlab-runner version such as "19.5.0"', 'write "18.5.0": YAML reads the unquoted 18.5 as a number'],
    ["account_id with a leading zero", AWS_BASE.replace("[us-east-1a]", "[us-east-1a]\n  account_id: 012345678901"), "12-digit AWS account id, leading zeros included", 'write "012345678901": YAML reads the unquoted 012345678901 as a number'],
    ["project: true", BASE_MODEL.replace("project: acme-runners-9", "project: true"), "a Google Cloud project id", 'quote it: "true"; YAML reads it as a boolean'],
  ])("%s", (_name, text, format, quote) => {
    const message = messagesOf(text).errors.join("\n");
    expect(message).toContain("expected a string");
    expect(message).toContain(format);
    expect(message).toContain(quote);
  });
});

describe("YAML syntax errors", () => {
  it("names the de-indented key and its path in plain words, and reports only the first error", () => {
    const { errors } = messagesOf(withLine(15, "     runner_version: 18.5.0"));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain("cell-9.yaml:15:1: shards[0].runner_version: expected valid YAML: the keys of one mapping indented to the same column");
    expect(errors[0]).toContain('received the key "runner_version" at column 6');
    expect(errors[0]).not.toContain("(top level)");
  });

  it("names a duplicate tags: in a shard by its path", () => {
    const { errors } = messagesOf(withLine(12, "    tags: [docker]\n    tags: [linux]"));
    expect(errors).toEqual([expect.stringContaining('cell-9.yaml:13:5: shards[0].tags: expected valid YAML: each key once in a mapping (keys must be unique')]);
  });
});

describe("one pass", () => {
  it("reports a cell id that differs from the file name together with the schema's errors", () => {
    const { errors } = messagesOf(withLine(2, "  id: cell-10").replace("max_instances: 10", "max_instances: ten"), "cell-9");
    expect(errors.join("\n")).toContain('cell.id: expected "cell-9", the file\'s name');
    expect(errors.join("\n")).toContain('shards[0].workers.max_instances: expected a number, received "ten"');
  });
});

describe("settings silently unused", () => {
  it("warns about a Google zone no manager slot reaches, and not when every zone holds one", () => {
    const three = BASE_MODEL.replace("zones: [europe-west4-a]", "zones: [europe-west4-a, europe-west4-b, europe-west4-c]").replace("      runner_version", "      count: 2\n      runner_version");
    expect(messagesOf(three).warnings).toEqual([expect.stringContaining('cloud.zones[2]: expected a zone a manager slot runs in: slot i runs in zones[i mod 3], and the largest managers.count is 2')]);
    expect(messagesOf(three.replace("count: 2", "count: 3")).warnings).toEqual([]);
  });

  it("warns when an existing VPC's subnets do not match the availability zones", () => {
    const existing = AWS_BASE.replace("[us-east-1a]", "[us-east-1a, us-east-1b, us-east-1c]") + "network:\n  existing:\n    network: vpc-0123456789abcdef0\n    subnets: [subnet-0123456789abcdef0, subnet-0123456789abcdef1]\n";
    expect(messagesOf(existing).warnings.join("\n")).toContain("3 zone(s) listed, 2 subnet(s) given");
    const matched = existing.replace("subnet-0123456789abcdef1]", "subnet-0123456789abcdef1, subnet-0123456789abcdef2]");
    expect(messagesOf(matched).warnings.join("\n")).not.toContain("subnet(s) given");
  });
});

describe("smaller ones", () => {
  it("suggests the nearest time zone", () => {
    const { errors } = messagesOf(withAppended("    autoscaling:\n      policies:\n        - timezone: America/NewYork"));
    expect(errors).toEqual([expect.stringContaining('received "America/NewYork" (did you mean "America/New_York"?)')]);
  });

  it("accepts tags as one comma-separated string, split as GitLab splits them", () => {
    const loaded = parseModel(withLine(12, "    tags: linux-arm64, docker"), "cell-9.yaml");
    expect(loaded.model.shards[0].tags).toEqual(["linux-arm64", "docker"]);
  });
});

describe("no library wording", () => {
  it("says what an email address is instead of zod's \"Invalid email address\"", () => {
    const { errors } = messagesOf(withAppended("monitoring:\n  notifications:\n    emails: [not-an-email]"));
    expect(errors).toEqual(['cell-9.yaml:21:14: monitoring.notifications.emails[0]: expected an email address such as runner-oncall@example.com, received "not-an-email"']);
    expect(errors.join("\n")).not.toMatch(/\bInvalid\b/);
  });
});
