/**
 * AWS manager health and paging: the managers may report their own groups' instances Unhealthy (and no
 * other group's), and the job-failure alarm counts system failures only, never a job's own script failing.
 */
import { JOB_FAILED_PATTERN, JOB_FINISHED_PATTERN } from "../../../constructs/aws/fleet-monitoring";
import { managerName, workerGroupName } from "../../../lib/model/names";
import { awsShardMetricNamespace, BOOT_FAILURES_METRIC } from "../../../lib/contract/fleet-contract";
import { managerSettings } from "../../../lib/render/startup-script";
import { exampleModel, modelWith } from "../../support/models";
import { awsFleetOf, awsTestStack, resourcesOf, synthJson, type Json } from "./support";

/**
 * CloudWatch Logs JSON filter terms of the form `$.msg = "text"` and `$.msg = "prefix*"` (a trailing `*`
 * is a wildcard), joined with `||`: the subset of the filter syntax the fleet's patterns use.
 */
function matchesFilter(pattern: string, event: Record<string, unknown>): boolean {
  const terms = [...pattern.matchAll(/\$\.(\w+)\s*=\s*"((?:[^"\\]|\\.)*)"/g)];
  expect(terms.length).toBeGreaterThan(0);
  return terms.some(([, field, value]) => {
    const actual = event[field];
    if (typeof actual !== "string") return false;
    return value.endsWith("*") ? actual.startsWith(value.slice(0, -1)) : actual === value;
  });
}

/** gitlab-runner's JSON log lines when a job ends. */
const SCRIPT_FAILURE = { level: "warning", msg: "Job failed: exit code 1", job: 41 };
const SYSTEM_FAILURE = { level: "warning", msg: "Job failed (system failure): prepare environment: dial tcp 10.0.1.7:22: i/o timeout", job: 42 };
const SUCCESS = { level: "info", msg: "Job succeeded", job: 43 };

describe("AWS job failure alarm", () => {
  test("counts a system failure as failed, and not a job whose script failed", () => {
    expect(matchesFilter(JOB_FAILED_PATTERN, SYSTEM_FAILURE)).toBe(true);
    expect(matchesFilter(JOB_FAILED_PATTERN, SCRIPT_FAILURE)).toBe(false);
    expect(matchesFilter(JOB_FAILED_PATTERN, SUCCESS)).toBe(false);
  });

  test("still counts every job that ended, whatever its outcome, as finished", () => {
    for (const event of [SCRIPT_FAILURE, SYSTEM_FAILURE, SUCCESS]) expect(matchesFilter(JOB_FINISHED_PATTERN, event)).toBe(true);
  });

  test("the synthesized metric filter uses the system-failure pattern", () => {
    const stack = awsTestStack();
    awsFleetOf(stack, exampleModel("cell-2"));
    const filters = Object.values(resourcesOf(synthJson(stack).json, "aws_cloudwatch_log_metric_filter"));
    const failed = filters.filter((filter) => filter.metric_transformation.name === "JobsFailed");
    expect(failed.length).toBe(1);
    expect(failed.map((filter) => filter.pattern)).toEqual([JOB_FAILED_PATTERN]);
  });
});

/** cell-2 with a second shard, and every statement of the managers' IAM policies. */
function twoShardPolicyStatements(): { model: ReturnType<typeof modelWith>; statements: Json } {
  const model = modelWith("cell-2", (draft) => {
    draft.shards.push({ ...structuredClone(draft.shards[0]), name: "other" });
  });
  const stack = awsTestStack();
  awsFleetOf(stack, model);
  const json = synthJson(stack).json;
  return { model, statements: Object.values(json.data.aws_iam_policy_document as Record<string, Json>).flatMap((doc) => doc.statement) };
}

describe("AWS manager health", () => {
  test("the managers' role may set instance health on its own shard's manager groups only", () => {
    const { model, statements } = twoShardPolicyStatements();
    const health = statements.filter((statement: Json) => statement.actions.includes("autoscaling:SetInstanceHealth"));
    expect(health).toHaveLength(model.shards.length);
    for (const shard of model.shards) {
      const own = Array.from({ length: shard.managers.count }, (_, slot) => managerName(model, shard, slot));
      const statement = health.find((candidate: Json) => candidate.resources.some((arn: string) => arn.endsWith(`/${own[0]}`)));
      expect(statement.actions).toEqual(["autoscaling:SetInstanceHealth"]);
      expect(statement.resources).toEqual(own.map((name) => expect.stringMatching(new RegExp(`:autoScalingGroup:\\*:autoScalingGroupName/${name}$`))));
      const workers = Array.from({ length: shard.managers.count }, (_, slot) => workerGroupName(model, shard, slot));
      for (const name of workers) expect(statement.resources.join(" ")).not.toContain(name);
    }
  });
});

describe("AWS failed boots", () => {
  test("each shard's managers may put metric data in their own shard's namespace only (the BootFailures point)", () => {
    const { model, statements } = twoShardPolicyStatements();
    const put = statements.filter((statement: Json) => statement.actions.includes("cloudwatch:PutMetricData"));

    expect(put.map((statement: Json) => statement.condition[0].values[0]).sort()).toEqual(
      model.shards.map((shard) => awsShardMetricNamespace(model.cell.id, shard.name)).sort(),
    );
    expect(put.every((statement: Json) => statement.condition.length === 1 && statement.condition[0].test === "StringEquals" && statement.condition[0].variable === "cloudwatch:namespace")).toBe(true);
    expect(put.every((statement: Json) => statement.actions.length === 1)).toBe(true);
  });

  test("the manager's settings name the namespace the boot-failed alarm watches", () => {
    const model = exampleModel("cell-2");
    const shard = model.shards[0];
    const stack = awsTestStack();
    awsFleetOf(stack, model);
    const alarms = Object.values(resourcesOf(synthJson(stack).json, "aws_cloudwatch_metric_alarm"));
    const bootFailed = alarms.find((alarm) => alarm.metric_name === BOOT_FAILURES_METRIC.aws);

    expect(bootFailed?.namespace).toBe(managerSettings(model, shard, 0).BOOT_METRIC_NAMESPACE);
  });
});
