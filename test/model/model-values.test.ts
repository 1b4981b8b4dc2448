/**
 * Model values the runner, GitLab or the cloud would refuse or misread are caught by
 * prepare: credentials in URLs (never echoed), CIDRs with leading zeros, durations
 * beyond Go's range; tags are normalised as GitLab does; unknown regions and shards
 * with the same tags are warnings that leave the exit code alone.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseGoDurationSeconds } from "../../lib/model/duration";
import { generateModel } from "../../app/prepare/generate-model";
import { parseModel } from "../../lib/model/load";
import { runInProcess, STACK_TRACE_LINE } from "../support/cli";
import { MODELS_DIR } from "../support/models";

const CELL_1 = readFileSync(join(MODELS_DIR, "cell-1.yaml"), "utf8");

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "model-values-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function writeCell1(change: (text: string) => string): string {
  const file = join(dir, "cell-1.yaml");
  const text = change(CELL_1);
  if (text === CELL_1) throw new Error("the change did not apply");
  writeFileSync(file, text);
  return file;
}

const errorsOf = (text: string) => {
  try {
    parseModel(text, "cell-1.yaml");
    return [];
  } catch (error) {
    return (error as { issues: Array<{ path: unknown[]; expected: string; received?: string }> }).issues;
  }
};

describe("gitlab.url with credentials", () => {
  const password = `pw-${Math.random().toString(36).slice(2, 12)}`;

  it("is refused with exit 2, and the password is printed nowhere (text and --json)", async () => {
    const file = writeCell1((text) => text.replace("url: https://cell-1.gitlab.example.com", `url: https://deploy:${password}@cell-1.gitlab.example.com`));
    for (const args of [["--model", file], ["--model", file, "--json"]]) {
      const result = await runInProcess("prepare", args);
      expect(result.status).toBe(2);
      expect(result.stdout).toContain("a URL without a user name or password");
      expect(result.stdout).toContain("deploy:****@cell-1.gitlab.example.com");
      expect(result.stdout + result.stderr).not.toContain(password);
    }
  });

  it("is refused from a trigger variable without echoing the password", () => {
    let message = "";
    try {
      generateModel({ CELL_ID: "cell-7", GITLAB_URL: `https://root:${password}@gitlab.example.com`, CLOUD: "google", REGION: "us-east1", PROJECT: "acme-runners-cell-7" });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain("variable GITLAB_URL: expected a URL without a user name or password");
    expect(message).not.toContain(password);
  });

  it("is refused with a user name alone, and in the state API URL", () => {
    expect(errorsOf(CELL_1.replace("url: https://cell-1", "url: https://token@cell-1"))[0]).toMatchObject({ path: ["gitlab", "url"] });
    const httpState = CELL_1.replace(/state:\n(  .*\n)+/, `state:\n  backend: http\n  project_id: 7\n  api_url: https://u:${password}@gitlab.example.com/api/v4\n`);
    const [issue] = errorsOf(httpState);
    expect(issue).toMatchObject({ path: ["state", "api_url"] });
    expect(issue.received).not.toContain(password);
  });
});

describe("values the runner or the cloud would refuse", () => {
  it.each(["010.020.0.0/20", "10.020.0.0/20", "10.20.0.0/020"])("refuses the CIDR %s (leading zeros)", (cidr) => {
    expect(errorsOf(CELL_1.replace("cidr: 10.20.0.0/20", `cidr: ${cidr}`))).toEqual([
      expect.objectContaining({ path: ["network", "cidr"], received: JSON.stringify(cidr) }),
    ]);
    expect(errorsOf(CELL_1.replace("monitoring_cidrs: [10.8.0.0/16]", `monitoring_cidrs: ["${cidr}"]`))[0]).toMatchObject({ path: ["network", "monitoring_cidrs", 0] });
  });

  it("accepts Go's largest duration and refuses anything beyond it, as time.ParseDuration does", () => {
    expect(parseGoDurationSeconds("2562047h")).toBe(2562047 * 3600);
    expect(parseGoDurationSeconds("2562047h47m16.854775807s")).toBeCloseTo(9223372036.854775807, 3);
    expect(parseGoDurationSeconds("2562047h47m16.854775808s")).toBeUndefined();
    expect(parseGoDurationSeconds("2562048h")).toBeUndefined();
    expect(parseGoDurationSeconds("9999999999h")).toBeUndefined();

    expect(errorsOf(CELL_1.replace("idle_time: 20m", "idle_time: 2562047h"))).toEqual([]);
    const [issue] = errorsOf(CELL_1.replace("idle_time: 20m", "idle_time: 2562048h"));
    expect(issue).toMatchObject({ path: ["shards", 0, "autoscaling", "policies", 0, "idle_time"], received: '"2562048h"' });
    expect(issue.expected).toContain("at most 2562047h");
    expect(errorsOf(CELL_1.replace("maximum_timeout: 1h", "maximum_timeout: 99999999h"))[0]).toMatchObject({ path: ["shards", 0, "maximum_timeout"] });
  });
});

describe("tags", () => {
  it("are normalised as GitLab stores them: split on commas, trimmed, blanks and duplicates dropped", () => {
    const text = CELL_1.replace("tags: [saas-linux-small-amd64, docker]", 'tags: ["saas-linux-small-amd64, docker", " docker ", "", "Docker", "saas-linux-small-amd64"]');
    expect(parseModel(text, "cell-1.yaml").model.shards[0].tags).toEqual(["saas-linux-small-amd64", "docker", "Docker"]);
  });

  it("refuse a line break inside a tag", () => {
    expect(errorsOf(CELL_1.replace("tags: [saas-linux-small-amd64, docker]", 'tags: ["docker\\nprivileged"]'))[0]).toMatchObject({ path: ["shards", 0, "tags", 0] });
  });
});

describe("warnings", () => {
  it.each([
    ["google", "region: europe-west4\n  zones: [europe-west4-a, europe-west4-b]", "region: europe-wset4\n  zones: [europe-wset4-a, europe-wset4-b]", "europe-wset4", "europe-west4"],
  ])("warn about an unknown %s region with a did-you-mean, exit 0, in text and --json", async (_cloud, from, to, typo, suggestion) => {
    const file = writeCell1((text) => text.replace(from, to));

    const text = await runInProcess("prepare", ["--model", file]);
    expect(text.status).toBe(0);
    expect(text.stdout).toMatch(new RegExp(`${file}:\\d+:\\d+: warning: cloud.region: expected a Google Cloud region \\(not in the list checked on \\d{4}-\\d{2}-\\d{2}; did you mean "${suggestion}"\\?\\), received "${typo}"`));

    const json = await runInProcess("prepare", ["--model", file, "--json"]);
    expect(json.status).toBe(0);
    expect(JSON.parse(json.stdout).models[0].warnings).toContainEqual(
      expect.objectContaining({ severity: "warning", path: ["cloud", "region"], received: `"${typo}"`, expected: expect.stringContaining(`did you mean "${suggestion}"`) }),
    );
  });

  it("warn about an unknown AWS region with a did-you-mean", () => {
    const cell2 = readFileSync(join(MODELS_DIR, "cell-2.yaml"), "utf8");
    const region = /region: (\S+)/.exec(cell2)![1];
    const typo = cell2.replaceAll(region, region.replace("west", "wset").replace("east", "esat"));
    const { warnings } = parseModel(typo, "cell-2.yaml");
    expect(warnings).toContainEqual(expect.objectContaining({ path: ["cloud", "region"], expected: expect.stringContaining(`did you mean "${region}"`) }));
    expect(parseModel(cell2.replaceAll(region, "eu-wset-1"), "cell-2.yaml").warnings).toContainEqual(
      expect.objectContaining({ path: ["cloud", "region"], expected: expect.stringContaining('did you mean "eu-west-1"') }),
    );
  });

  it("are not raised for the example models' known regions", () => {
    expect(parseModel(CELL_1, "cell-1.yaml").warnings.filter((warning) => warning.path.join(".") === "cloud.region")).toEqual([]);
  });

  it("warn when two shards carry the same tags, in any order", async () => {
    const file = writeCell1((text) => text.replace(/(- name: large-amd64\n(?:.*\n)*?\s+tags: )\[[^\]]*\]/, "$1[docker, saas-linux-small-amd64]"));
    const result = await runInProcess("prepare", ["--model", file]);
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/warning: shards\[1\]\.tags: expected tags that tell this shard from shards\[0\] \(small-amd64\)/);
    expect(result.stdout + result.stderr).not.toMatch(STACK_TRACE_LINE);
  });
});
