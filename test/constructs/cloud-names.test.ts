/**
 * Names the clouds accept: a cell with the longest ids the model allows synthesizes names that meet
 * every rule of lib/names/cloud-name-rules.ts, checked on the synthesized JSON (what Terraform would send),
 * and the Google IAM condition names exactly the instances the worker groups create.
 */
import { Testing, TerraformStack } from "cdktf";
import { AwsProvider } from "@cdktf/provider-aws/lib/provider";
import { GoogleProvider } from "@cdktf/provider-google/lib/provider";
import { AWS_NAME_RULES, GOOGLE_NAME_RULES, nameProblem, type NameRule } from "../../lib/names/cloud-name-rules";
import { modelWith } from "../support/models";
import { awsFleetOf } from "./aws/support";
import { googleFleetOf } from "./google/support";

type Json = Record<string, any>;

/** 63 characters, the longest DNS label the model accepts for a cell id or shard name. */
const longLabel = (start: string) => `${start}-${"x".repeat(60 - start.length)}-a`;

function synthesize(build: (stack: TerraformStack) => void): Json {
  const stack = new TerraformStack(Testing.app(), "names");
  build(stack);
  return JSON.parse(Testing.synth(stack));
}

function resources(json: Json, type: string): Json[] {
  return Object.values(json.resource?.[type] ?? {});
}

function expectAccepted(values: string[], rule: NameRule): void {
  expect(values.length).toBeGreaterThan(0);
  for (const value of values) expect({ value, problem: nameProblem(rule, value) }).toEqual({ value, problem: undefined });
}

describe("Google Cloud names of a cell with the longest ids", () => {
  const model = modelWith("cell-1", (m) => {
    m.cell.id = longLabel("cell");
    m.shards[0].name = longLabel("small");
    m.shards[1].name = longLabel("large");
  });
  const json = synthesize((stack) => {
    new GoogleProvider(stack, "google", {});
    googleFleetOf(stack, model);
  });
  const groups = resources(json, "google_compute_instance_group_manager");

  it("gives every managed instance group a base_instance_name of at most 58 characters", () => {
    expect(groups).toHaveLength(4 + 4);
    expectAccepted(groups.map((group) => group.base_instance_name), GOOGLE_NAME_RULES.baseInstanceName);
  });

  it("keeps every Compute Engine name within 63 characters of [a-z]([-a-z0-9]*[a-z0-9])?", () => {
    const named = [
      "google_compute_instance_group_manager",
      "google_compute_health_check",
      "google_compute_firewall",
      "google_compute_network",
      "google_compute_subnetwork",
      "google_compute_router",
      "google_compute_router_nat",
    ].flatMap((type) => resources(json, type).map((resource) => resource.name));
    expectAccepted(named, GOOGLE_NAME_RULES.computeName);
    const tags = resources(json, "google_compute_instance_template").flatMap((template) => template.tags);
    expectAccepted(tags, GOOGLE_NAME_RULES.computeName);
  });

  it("keeps template name prefixes within 37 characters and service account ids within 6 to 30", () => {
    expectAccepted(resources(json, "google_compute_instance_template").map((t) => t.name_prefix), GOOGLE_NAME_RULES.templateNamePrefix);
    expectAccepted(resources(json, "google_service_account").map((account) => account.account_id), GOOGLE_NAME_RULES.serviceAccountId);
    expectAccepted(resources(json, "google_project_iam_custom_role").map((role) => role.role_id), GOOGLE_NAME_RULES.customRoleId);
    expectAccepted(resources(json, "google_storage_bucket").map((bucket) => bucket.name), GOOGLE_NAME_RULES.bucketName);
  });

  it("lets the fleeting role reach exactly the instances the worker groups name", () => {
    const conditions = resources(json, "google_project_iam_member")
      .filter((member) => member.condition?.title === "own-worker-groups-only")
      .map((member) => member.condition.expression as string);
    expect(conditions).toHaveLength(2);
    const workerGroups = groups.filter((group) => group.target_size === 0);
    expect(workerGroups).toHaveLength(4);
    for (const group of workerGroups) {
      // A MIG names its instances "<base_instance_name>-xxxx".
      const instancePrefix = `/zones/${group.zone}/instances/${group.base_instance_name}-`;
      const matching = conditions.filter((condition) => condition.includes(`startsWith("projects/${model.cloud.provider === "google" ? model.cloud.project : ""}${instancePrefix}")`));
      expect(matching).toHaveLength(1);
      expect(`${group.base_instance_name}-abcd`.length).toBeLessThanOrEqual(63);
    }
  });
});

describe("AWS names of a cell with the longest ids", () => {
  const model = modelWith("cell-2", (m) => {
    m.cell.id = longLabel("cell");
    m.shards[0].name = longLabel("spot");
  });
  const json = synthesize((stack) => {
    new AwsProvider(stack, "aws", { region: "eu-west-1" });
    awsFleetOf(stack, model);
  });
  const namesOf = (type: string, key = "name") => resources(json, type).map((resource) => resource[key] as string);

  it("synthesizes every named resource within its AWS limit", () => {
    expectAccepted(namesOf("aws_autoscaling_group"), AWS_NAME_RULES.autoScalingGroupName);
    expectAccepted(namesOf("aws_launch_template"), AWS_NAME_RULES.launchTemplateName);
    expectAccepted(namesOf("aws_iam_role"), AWS_NAME_RULES.iamRoleName);
    expectAccepted(namesOf("aws_iam_instance_profile"), AWS_NAME_RULES.instanceProfileName);
    expectAccepted(namesOf("aws_iam_role_policy"), AWS_NAME_RULES.iamPolicyName);
    expectAccepted(namesOf("aws_s3_bucket", "bucket"), AWS_NAME_RULES.bucketName);
    expectAccepted(namesOf("aws_cloudwatch_metric_alarm", "alarm_name"), AWS_NAME_RULES.alarmName);
    expectAccepted(namesOf("aws_cloudwatch_dashboard", "dashboard_name"), AWS_NAME_RULES.dashboardName);
    expectAccepted(namesOf("aws_cloudwatch_log_group"), AWS_NAME_RULES.logGroupName);
    expectAccepted(namesOf("aws_cloudwatch_log_metric_filter"), AWS_NAME_RULES.metricFilterName);
    expectAccepted(namesOf("aws_sns_topic"), AWS_NAME_RULES.snsTopicName);
    expectAccepted(namesOf("aws_security_group"), AWS_NAME_RULES.securityGroupName);
  });
});
