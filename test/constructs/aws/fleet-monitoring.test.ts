import { CloudwatchLogGroup } from "@cdktf/provider-aws/lib/cloudwatch-log-group";
import { CloudwatchLogMetricFilter } from "@cdktf/provider-aws/lib/cloudwatch-log-metric-filter";
import { SnsTopicSubscription } from "@cdktf/provider-aws/lib/sns-topic-subscription";
import {
  FleetMonitoring,
  JOB_FAILED_PATTERN,
  JOB_FINISHED_PATTERN,
  type FleetMonitoringProps,
  type MonitoredShard,
} from "../../../constructs/aws/fleet-monitoring";
import { awsTestStack, expectNoTokenShapedStrings, referenceTo, resourcesOf, synthJson, type Json } from "./support";

const SHARD: MonitoredShard = {
  name: "main",
  logGroupName: "/gitlab-runner/cell-9/main",
  managerGroupNames: ["cell-9-main-mgr-0", "cell-9-main-mgr-1"],
  workerGroupNames: ["cell-9-main-wrk-0", "cell-9-main-wrk-1"],
  maxInstances: 10,
  names: {
    jobsFailedFilter: "cell-9-main-jobs-failed",
    jobsFinishedFilter: "cell-9-main-jobs-finished",
    jobsFailingAlarm: "cell-9-main-jobs-failing",
    bootFailedAlarm: "cell-9-main-boot-failed",
    jobRequestsFailedFilter: "cell-9-main-job-requests-failed",
    jobRequestsFailingAlarm: "cell-9-main-job-requests-failing",
    managerUnhealthyAlarms: ["cell-9-main-mgr-0-unhealthy", "cell-9-main-mgr-1-unhealthy"],
    managerHeartbeatAlarms: ["cell-9-main-mgr-0-heartbeat", "cell-9-main-mgr-1-heartbeat"],
    workersNearMaxAlarms: ["cell-9-main-wrk-0-near-max", "cell-9-main-wrk-1-near-max"],
  },
};
const EXISTING_TOPIC = "arn:aws:sns:eu-west-1:123456789012:oncall";

function synthMonitoring(props: Partial<FleetMonitoringProps> = {}) {
  const stack = awsTestStack();
  const monitoring = new FleetMonitoring(stack, "monitoring", {
    namePrefix: "cell-9",
    topicName: "cell-9-runner-alerts",
    dashboardName: "cell-9-runner-fleet",
    region: "eu-west-1",
    shards: [SHARD],
    emails: ["oncall@example.com"],
    webhooks: ["https://hooks.example.com/runner-alerts"],
    topicArns: [EXISTING_TOPIC],
    ...props,
  });
  return { monitoring, ...synthJson(stack) };
}

function alarmNamed(json: Json, name: string): Json {
  const alarm = Object.values(resourcesOf(json, "aws_cloudwatch_metric_alarm")).find((candidate) => candidate.alarm_name === name);
  if (!alarm) throw new Error(`no alarm ${name}`);
  return alarm;
}

describe("FleetMonitoring", () => {
  test("THEN each shard has its log group with the retention", () => {
    const { text } = synthMonitoring({ logRetentionDays: 90 });
    expect(text).toHaveResourceWithProperties(CloudwatchLogGroup, { name: SHARD.logGroupName, retention_in_days: 90 });
  });

  test("THEN metric filters on the log group count failed and finished jobs from the runner's JSON log", () => {
    const { text, json, monitoring } = synthMonitoring();
    const logGroupName = referenceTo(json, "aws_cloudwatch_log_group", "name", () => true);
    for (const [pattern, metric] of [
      [JOB_FAILED_PATTERN, "JobsFailed"],
      [JOB_FINISHED_PATTERN, "JobsFinished"],
    ]) {
      expect(text).toHaveResourceWithProperties(CloudwatchLogMetricFilter, {
        log_group_name: logGroupName,
        pattern,
        metric_transformation: expect.objectContaining({ name: metric, namespace: monitoring.metricNamespace("main"), value: "1" }),
      });
    }
  });

  test("THEN every manager slot has a heartbeat alarm on its own slot's ManagerHeartbeat that breaches on 0 and on no data", () => {
    const { json, monitoring } = synthMonitoring({ managerHeartbeatMissingForSeconds: 1200 });
    SHARD.managerGroupNames.forEach((groupName, slot) => {
      expect(alarmNamed(json, `${groupName}-heartbeat`)).toMatchObject({
        namespace: monitoring.metricNamespace("main"),
        metric_name: "ManagerHeartbeat",
        dimensions: { Shard: "main", Slot: String(slot) },
        statistic: "Maximum",
        period: 60,
        evaluation_periods: 20,
        comparison_operator: "LessThanThreshold",
        threshold: 1,
        treat_missing_data: "breaching",
      });
    });
  });

  test("THEN the heartbeat alarm waits 15 minutes by default, longer than a manager's boot", () => {
    const { json } = synthMonitoring();
    expect(alarmNamed(json, "cell-9-main-mgr-0-heartbeat")).toMatchObject({ evaluation_periods: 15 });
  });

  test("fails when the heartbeat window is not whole minutes", () => {
    expect(() => synthMonitoring({ managerHeartbeatMissingForSeconds: 150 })).toThrow(/managerHeartbeatMissingForSeconds.*whole minutes/s);
  });

  test("THEN each NAT gateway has a port-allocation alarm and a dropped-packets alarm on its own id", () => {
    const gateways = [{ zone: "eu-west-1a", id: "nat-0aaa" }, { zone: "eu-west-1b", id: "nat-0bbb" }];
    const natAlarmNames = Object.fromEntries(gateways.map(({ zone }) => [zone, { portAllocationErrors: `cell-9-nat-${zone}-port-allocation-errors`, packetsDropped: `cell-9-nat-${zone}-packets-dropped` }]));
    const { json } = synthMonitoring({ natGateways: gateways, natAlarmNames });
    for (const { zone, id } of gateways) {
      expect(alarmNamed(json, `cell-9-nat-${zone}-port-allocation-errors`)).toMatchObject({
        namespace: "AWS/NATGateway",
        metric_name: "ErrorPortAllocation",
        dimensions: { NatGatewayId: id },
        statistic: "Sum",
        comparison_operator: "GreaterThanThreshold",
        threshold: 0,
        treat_missing_data: "notBreaching",
      });
      const dropped = alarmNamed(json, `cell-9-nat-${zone}-packets-dropped`);
      expect(dropped).toMatchObject({ comparison_operator: "GreaterThanThreshold", threshold: 0.01, treat_missing_data: "notBreaching" });
      const queries = dropped.metric_query as Json[];
      expect(queries.filter((query) => query.metric).map((query) => [query.metric.metric_name, query.metric.dimensions.NatGatewayId])).toEqual([
        ["PacketsDropCount", id],
        ["PacketsInFromSource", id],
        ["PacketsInFromDestination", id],
      ]);
      expect(queries.find((query) => query.return_data)?.expression).toBe("IF((fromSource + fromDestination) > 0, 100 * FILL(dropped, 0) / (fromSource + fromDestination), 0)");
    }
  });

  test("fails when a NAT gateway has no alarm names", () => {
    expect(() => synthMonitoring({ natGateways: [{ zone: "eu-west-1c", id: "nat-0ccc" }] })).toThrow(/natAlarmNames\.eu-west-1c/);
  });

  test("THEN every manager slot has an unhealthy alarm: fewer than 1 instance in service for the absence time", () => {
    const { json } = synthMonitoring({ managerAbsentForSeconds: 600 });
    for (const groupName of SHARD.managerGroupNames) {
      expect(alarmNamed(json, `${groupName}-unhealthy`)).toMatchObject({
        namespace: "AWS/AutoScaling",
        metric_name: "GroupInServiceInstances",
        dimensions: { AutoScalingGroupName: groupName },
        comparison_operator: "LessThanThreshold",
        threshold: 1,
        period: 60,
        evaluation_periods: 10,
      });
    }
  });

  test("THEN a failed boot pages at once: the boot-failed alarm counts the BootFailures points managers record in the shard's namespace", () => {
    const { json } = synthMonitoring();
    expect(alarmNamed(json, "cell-9-main-boot-failed")).toMatchObject({
      namespace: "GitLabRunner/cell-9/main",
      metric_name: "BootFailures",
      statistic: "Sum",
      comparison_operator: "GreaterThanOrEqualToThreshold",
      threshold: 1,
      evaluation_periods: 1,
      treat_missing_data: "notBreaching",
    });
  });

  test("THEN the jobs-failing alarm's threshold is the failure ratio itself, over 15 minutes", () => {
    const { json } = synthMonitoring({ jobFailureRatio: 0.4, jobFailureMinimumJobs: 20 });
    const alarm = alarmNamed(json, "cell-9-main-jobs-failing");
    expect(alarm).toMatchObject({ threshold: 0.4, comparison_operator: "GreaterThanOrEqualToThreshold", evaluation_periods: 1 });
    const queries = Object.fromEntries(alarm.metric_query.map((query: Json) => [query.id, query]));
    expect(queries.failed.metric).toMatchObject({ metric_name: "JobsFailed", stat: "Sum", period: 900 });
    expect(queries.finished.metric).toMatchObject({ metric_name: "JobsFinished", stat: "Sum", period: 900 });
    expect(queries.ratio).toMatchObject({ return_data: true, expression: "IF(finished >= 20, FILL(failed, 0) / finished, 0)" });
  });

  test("THEN every worker group has a capacity alarm at the near-max share of its max instances", () => {
    const { json, monitoring } = synthMonitoring({ workersNearMax: 0.7 });
    for (const groupName of SHARD.workerGroupNames) {
      expect(alarmNamed(json, `${groupName}-near-max`)).toMatchObject({
        metric_name: "GroupInServiceInstances",
        dimensions: { AutoScalingGroupName: groupName },
        comparison_operator: "GreaterThanOrEqualToThreshold",
        threshold: 7,
      });
    }
    expect(monitoring.capacityAlarmThreshold(50)).toBe(35);
  });

  test("THEN emails and webhooks subscribe to the topic, and every alarm notifies the topic and the existing topics", () => {
    const { text, json } = synthMonitoring();
    const topicArn = referenceTo(json, "aws_sns_topic", "arn", () => true);
    expect(text).toHaveResourceWithProperties(SnsTopicSubscription, { topic_arn: topicArn, protocol: "email", endpoint: "oncall@example.com" });
    expect(text).toHaveResourceWithProperties(SnsTopicSubscription, {
      topic_arn: topicArn,
      protocol: "https",
      endpoint: "https://hooks.example.com/runner-alerts",
    });
    const alarms = Object.values(resourcesOf(json, "aws_cloudwatch_metric_alarm"));
    // Per manager group "unhealthy" and "heartbeat", per worker group "near max", and per shard "jobs failing", "boot failed" and "job requests failing".
    expect(alarms).toHaveLength(2 * SHARD.managerGroupNames.length + 3 + SHARD.workerGroupNames.length);
    for (const alarm of alarms) {
      expect(alarm.alarm_actions).toEqual([topicArn, EXISTING_TOPIC]);
      expect(alarm.ok_actions).toEqual([topicArn, EXISTING_TOPIC]);
    }
  });

  test("THEN the dashboard shows every manager and worker group and the shard's log group", () => {
    const { json } = synthMonitoring();
    const [dashboard] = Object.values(resourcesOf(json, "aws_cloudwatch_dashboard"));
    const body = JSON.parse(dashboard.dashboard_body);
    const text = JSON.stringify(body.widgets);
    for (const name of [...SHARD.managerGroupNames, ...SHARD.workerGroupNames, SHARD.logGroupName]) expect(text).toContain(name);
    expect(dashboard.dashboard_name).toBe("cell-9-runner-fleet");
  });

  test("THEN defaults follow the model's defaults", () => {
    const { monitoring } = synthMonitoring();
    expect(monitoring).toMatchObject({ logRetentionDays: 30, managerAbsentForSeconds: 300, jobFailureRatio: 0.25, workersNearMax: 0.9 });
  });

  test("THEN the synthesized JSON has no token-shaped strings", () => {
    expectNoTokenShapedStrings(synthMonitoring().text);
  });

  test("GIVEN no subscriptions THEN alarms still go to the topic", () => {
    const { json } = synthMonitoring({ emails: [], webhooks: [], topicArns: [] });
    expect(resourcesOf(json, "aws_sns_topic_subscription")).toEqual({});
    const topicArn = referenceTo(json, "aws_sns_topic", "arn", () => true);
    for (const alarm of Object.values(resourcesOf(json, "aws_cloudwatch_metric_alarm"))) expect(alarm.alarm_actions).toEqual([topicArn]);
  });

  describe("invariants", () => {
    test("fails when a channel is not an SNS topic ARN", () => {
      expect(() => synthMonitoring({ topicArns: ["projects/p/notificationChannels/1"] })).toThrow(
        /monitoring: topicArns\[0\] is "projects\/p\/notificationChannels\/1"; expected an SNS topic ARN/,
      );
    });

    test("fails when a webhook is not https", () => {
      expect(() => synthMonitoring({ webhooks: ["http://hooks.example.com"] })).toThrow(/webhooks\[0\] is "http:\/\/hooks.example.com"; expected an https:\/\/ URL/);
    });

    test("fails when the log retention is not one CloudWatch accepts", () => {
      expect(() => synthMonitoring({ logRetentionDays: 10 })).toThrow(/logRetentionDays is 10; expected one of the retention periods/);
    });

    test("fails when the job failure ratio is 0", () => {
      expect(() => synthMonitoring({ jobFailureRatio: 0 })).toThrow("monitoring: jobFailureRatio is 0; expected a share greater than 0 and at most 1.");
    });

    test("fails when the absence time is not whole minutes", () => {
      expect(() => synthMonitoring({ managerAbsentForSeconds: 90 })).toThrow(/managerAbsentForSeconds is 90; expected whole minutes/);
    });
  });
  test("fails when a shard's alarm names do not match its groups one to one", () => {
    const shard = { ...SHARD, names: { ...SHARD.names, managerUnhealthyAlarms: ["cell-9-main-mgr-0-unhealthy"] } };
    expect(() => synthMonitoring({ shards: [shard] })).toThrow(
      'monitoring: shards[0].names.managerUnhealthyAlarms is ["cell-9-main-mgr-0-unhealthy"]; expected one alarm name per manager group (2).',
    );
  });
});
