/**
 * Monitoring of a cell's runner fleet on AWS: each shard's log group (the managers' CloudWatch agent
 * ships gitlab-runner's JSON log there), metric filters counting finished and failed jobs, alarms,
 * an SNS topic with the model's subscriptions, and a dashboard.
 *
 * Alarms:
 * - manager unhealthy: a manager slot's group has had no instance in service for `managerAbsentForSeconds`.
 *   This sees a missing or replaced VM; a gitlab-runner process that hangs on a live VM shows up as
 *   failing jobs or stopped logs instead.
 * - jobs failing: over 15 minutes, system-failed jobs / finished jobs >= `jobFailureRatio`, computed with metric
 *   math from the two metric filters, so the model's ratio is the alarm threshold itself. Windows with
 *   fewer than `jobFailureMinimumJobs` finished jobs count as 0, so one failed job of one does not page.
 * - capacity near max: a worker group has >= ceil(`workersNearMax` x max instances) instances in service.
 * - manager heartbeat: a manager slot's ManagerHeartbeat (put by the manager from the start of its boot, 1 while
 *   gitlab-runner runs) has said "no runner", or nothing at all, for `managerHeartbeatMissingForSeconds`: a boot
 *   that hangs, a runner that never starts, an instance that cannot reach CloudWatch. It does not depend on the
 *   runner running or logging (treat_missing_data: breaching).
 * - NAT gateway (one pair per gateway the network made): port allocation errors, and dropped packets above
 *   0.01 % of its traffic (AWS/NATGateway, dimension NatGatewayId; Amazon VPC user guide, "Monitor NAT
 *   gateways with CloudWatch"; the CloudWatch "Recommended alarms" for NATGateway). Jobs see connection
 *   timeouts to registries and GitLab; the Google fleet's Cloud NAT alert is the same.
 */
import { Construct } from "constructs";
import { CloudwatchDashboard } from "@cdktf/provider-aws/lib/cloudwatch-dashboard";
import { CloudwatchLogGroup } from "@cdktf/provider-aws/lib/cloudwatch-log-group";
import { CloudwatchLogMetricFilter } from "@cdktf/provider-aws/lib/cloudwatch-log-metric-filter";
import { CloudwatchMetricAlarm } from "@cdktf/provider-aws/lib/cloudwatch-metric-alarm";
import { SnsTopic } from "@cdktf/provider-aws/lib/sns-topic";
import { SnsTopicSubscription } from "@cdktf/provider-aws/lib/sns-topic-subscription";
import { SNS_TOPIC_ARN } from "./arns";
import { JOB_FAILURE_ALERT, JOB_REQUEST_FAILURE_ALERT } from "../../lib/contract/fleet-alerts";
import { awsShardMetricNamespace, BOOT_FAILURES_METRIC, MANAGER_HEARTBEAT_METRIC } from "../../lib/contract/fleet-contract";
import { NAME_PREFIX, NAME_PREFIX_EXPECTED, checkIntegerRange, checkNonEmpty, checkPattern, checkRatio, checkUnique, fail, isToken } from "./checks";

/**
 * gitlab-runner (log_format = "json") logs "Job failed (system failure): <reason>" when a job fails for
 * the runner's or the infrastructure's reasons, and "Job failed: <reason>" when the job's own script
 * failed. Only the first kind pages: a red user pipeline is not a fleet fault (the Google alert leaves
 * out failure_reason="script_failure" likewise).
 */
export const JOB_FAILED_PATTERN = '{ $.msg = "Job failed (system failure)*" }';
/**
 * Failed job requests (lib/contract/fleet-alerts.ts JOB_REQUEST_FAILURE_ALERT): the lines gitlab-runner's RequestJob logs
 * for every status but 201, 204 and 409 (network/gitlab.go). "Checking for jobs... error" is the older wording of
 * the transport error. JSON filter syntax: docs.aws.amazon.com/AmazonCloudWatch/latest/logs/FilterAndPatternSyntax.html.
 */
export const JOB_REQUEST_FAILED_PATTERN =
  '{ ($.msg = "Checking for jobs... forbidden") || ($.msg = "Checking for jobs... client error") || ($.msg = "Checking for jobs... error")' +
  ' || ($.msg = "Checking for jobs... GitLab instance currently unavailable") || (($.msg = "Checking for jobs... failed") && ($.status != "409*")) }';
export const JOB_REQUESTS_FAILED_METRIC = "JobRequestsFailed";
/** ... and "Job succeeded" when one succeeds; succeeded and every failed job together are the finished jobs. */
export const JOB_FINISHED_PATTERN = '{ ($.msg = "Job succeeded") || ($.msg = "Job failed*") }';
export const JOBS_FAILED_METRIC = "JobsFailed";
export const JOBS_FINISHED_METRIC = "JobsFinished";

/** Retention periods CloudWatch Logs accepts. */
const LOG_RETENTION_DAYS = [1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653];
const JOB_FAILURE_WINDOW_SECONDS = JOB_FAILURE_ALERT.windowSeconds;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const HTTPS_URL = /^https:\/\/[^\s]+$/;

export interface MonitoredShard {
  /** Shard name; names its alarms, metric namespace and dashboard row. */
  readonly name: string;
  /** The log group the shard's managers ship gitlab-runner's log to (`logGroupName(model, shard)`). */
  readonly logGroupName: string;
  /** Auto Scaling group names of the shard's manager slots. */
  readonly managerGroupNames: string[];
  /** Auto Scaling group names of the shard's worker groups. */
  readonly workerGroupNames: string[];
  /** max_size of each worker group. */
  readonly maxInstances: number;
  /** Names of the shard's metric filters and alarms (lib/model/aws-names.ts). */
  readonly names: MonitoredShardNames;
}

export interface MonitoredShardNames {
  readonly jobsFailedFilter: string;
  readonly jobsFinishedFilter: string;
  readonly jobsFailingAlarm: string;
  /** Fires when a manager of the shard reports a failed boot. */
  readonly bootFailedAlarm: string;
  readonly jobRequestsFailedFilter: string;
  /** Fires when the shard's managers cannot get jobs from GitLab. */
  readonly jobRequestsFailingAlarm: string;
  /** One per manager group, in `managerGroupNames` order. */
  readonly managerUnhealthyAlarms: readonly string[];
  /** One per manager group, in `managerGroupNames` order: the slot's heartbeat alarm. */
  readonly managerHeartbeatAlarms: readonly string[];
  /** One per worker group, in `workerGroupNames` order. */
  readonly workersNearMaxAlarms: readonly string[];
}

export interface FleetMonitoringProps {
  /** Prefix of the metric namespaces, such as the cell id. */
  readonly namePrefix: string;
  /** Name of the SNS topic the alarms publish to (`alertTopicName` in lib/model/aws-names.ts). */
  readonly topicName: string;
  /** Name of the fleet's dashboard (`fleetDashboardName` in lib/model/aws-names.ts). */
  readonly dashboardName: string;
  /** Region of the dashboard's widgets. */
  readonly region: string;
  readonly shards: MonitoredShard[];
  /**
   * Days the runner logs are kept.
   * @default 30
   */
  readonly logRetentionDays?: number;
  /**
   * Alarm when a manager slot has had no instance in service this long (whole minutes).
   * @default 300
   */
  readonly managerAbsentForSeconds?: number;
  /**
   * Alarm when a manager slot's heartbeat has said "no gitlab-runner" or been missing this long (whole minutes):
   * longer than a manager's boot, shorter than a hang should go unseen.
   * @default 900
   */
  readonly managerHeartbeatMissingForSeconds?: number;
  /**
   * The network's NAT gateways (Network.natGateways): a port-allocation and a dropped-packets alarm each.
   * @default []
   */
  readonly natGateways?: ReadonlyArray<{ readonly zone: string; readonly id: string }>;
  /**
   * Names of each NAT gateway's alarms, by the zone it serves from (`natAlarmName` in lib/model/aws-names.ts).
   * @default {}
   */
  readonly natAlarmNames?: Readonly<Record<string, { readonly portAllocationErrors: string; readonly packetsDropped: string }>>;
  /**
   * Alarm when this share of the jobs finished in 15 minutes failed for system reasons (not the job's script).
   * @default 0.25
   */
  readonly jobFailureRatio?: number;
  /**
   * Finished jobs a 15-minute window needs before its failure ratio counts.
   * @default 10
   */
  readonly jobFailureMinimumJobs?: number;
  /**
   * Alarm when a worker group reaches this share of its max instances.
   * @default 0.9
   */
  readonly workersNearMax?: number;
  /**
   * Email addresses subscribed to the alarm topic (each must confirm the subscription).
   * @default []
   */
  readonly emails?: string[];
  /**
   * HTTPS endpoints subscribed to the alarm topic (each must confirm the subscription).
   * @default []
   */
  readonly webhooks?: string[];
  /**
   * Existing SNS topic ARNs that receive the alarms too.
   * @default []
   */
  readonly topicArns?: string[];
  /**
   * Tags of the log groups, alarms and topic.
   * @default {}
   */
  readonly tags?: Record<string, string>;
}

export class FleetMonitoring extends Construct {
  public readonly logRetentionDays: number;
  public readonly managerAbsentForSeconds: number;
  public readonly managerHeartbeatMissingForSeconds: number;
  public readonly jobFailureRatio: number;
  public readonly jobFailureMinimumJobs: number;
  public readonly workersNearMax: number;
  public readonly topic: SnsTopic;
  /** Where every alarm and recovery goes: the created topic and the existing ones. */
  public readonly alarmActions: string[];
  public readonly logGroups: Record<string, CloudwatchLogGroup> = {};
  public readonly dashboard: CloudwatchDashboard;

  private readonly props: FleetMonitoringProps;

  constructor(scope: Construct, id: string, props: FleetMonitoringProps) {
    super(scope, id);
    this.props = props;
    this.logRetentionDays = props.logRetentionDays ?? 30;
    this.managerAbsentForSeconds = props.managerAbsentForSeconds ?? 300;
    this.managerHeartbeatMissingForSeconds = props.managerHeartbeatMissingForSeconds ?? 900;
    this.jobFailureRatio = props.jobFailureRatio ?? 0.25;
    this.jobFailureMinimumJobs = props.jobFailureMinimumJobs ?? JOB_FAILURE_ALERT.minimumFinishedJobs;
    this.workersNearMax = props.workersNearMax ?? 0.9;
    this.checkProps();

    this.topic = new SnsTopic(this, "topic", { name: props.topicName, tags: props.tags });
    (props.emails ?? []).forEach((email, index) => {
      new SnsTopicSubscription(this, `email-subscription-${index}`, { topicArn: this.topic.arn, protocol: "email", endpoint: email });
    });
    (props.webhooks ?? []).forEach((url, index) => {
      new SnsTopicSubscription(this, `webhook-subscription-${index}`, { topicArn: this.topic.arn, protocol: "https", endpoint: url });
    });
    this.alarmActions = [this.topic.arn, ...(props.topicArns ?? [])];

    for (const shard of props.shards) this.monitorShard(shard);
    for (const gateway of props.natGateways ?? []) this.monitorNatGateway(gateway);
    this.dashboard = new CloudwatchDashboard(this, "dashboard", {
      dashboardName: props.dashboardName,
      dashboardBody: JSON.stringify({ widgets: props.shards.flatMap((shard, row) => this.shardWidgets(shard, row)) }),
    });
  }

  /** Namespace of a shard's job metrics. */
  public metricNamespace(shardName: string): string {
    return awsShardMetricNamespace(this.props.namePrefix, shardName);
  }

  /** Instances in service at which a worker group's capacity alarm fires. */
  public capacityAlarmThreshold(maxInstances: number): number {
    // The small epsilon keeps 0.7 x 10 = 7.000000000000001 at 7.
    return Math.max(1, Math.ceil(this.workersNearMax * maxInstances - 1e-9));
  }

  private checkProps(): void {
    const { props } = this;
    checkPattern(this, "namePrefix", props.namePrefix, NAME_PREFIX, NAME_PREFIX_EXPECTED);
    checkNonEmpty(this, "shards", props.shards, "shard");
    checkUnique(this, "shards[].name", props.shards.map((shard) => shard.name));
    props.shards.forEach((shard, index) => {
      const names = shard.names;
      if (names.managerUnhealthyAlarms.length !== shard.managerGroupNames.length) {
        fail(this, `shards[${index}].names.managerUnhealthyAlarms`, names.managerUnhealthyAlarms, `one alarm name per manager group (${shard.managerGroupNames.length})`);
      }
      if (names.managerHeartbeatAlarms.length !== shard.managerGroupNames.length) {
        fail(this, `shards[${index}].names.managerHeartbeatAlarms`, names.managerHeartbeatAlarms, `one alarm name per manager group (${shard.managerGroupNames.length})`);
      }
      if (names.workersNearMaxAlarms.length !== shard.workerGroupNames.length) {
        fail(this, `shards[${index}].names.workersNearMaxAlarms`, names.workersNearMaxAlarms, `one alarm name per worker group (${shard.workerGroupNames.length})`);
      }
    });
    if (!LOG_RETENTION_DAYS.includes(this.logRetentionDays)) {
      fail(this, "logRetentionDays", this.logRetentionDays, `one of the retention periods CloudWatch Logs accepts: ${LOG_RETENTION_DAYS.join(", ")}`);
    }
    checkIntegerRange(this, "managerAbsentForSeconds", this.managerAbsentForSeconds, 60, 86400);
    if (!isToken(this.managerAbsentForSeconds) && this.managerAbsentForSeconds % 60 !== 0) {
      fail(this, "managerAbsentForSeconds", this.managerAbsentForSeconds, "whole minutes (the group metrics come once a minute)");
    }
    checkIntegerRange(this, "managerHeartbeatMissingForSeconds", this.managerHeartbeatMissingForSeconds, 120, 86400);
    if (!isToken(this.managerHeartbeatMissingForSeconds) && this.managerHeartbeatMissingForSeconds % 60 !== 0) {
      fail(this, "managerHeartbeatMissingForSeconds", this.managerHeartbeatMissingForSeconds, "whole minutes (a manager puts its heartbeat once a minute)");
    }
    (props.natGateways ?? []).forEach((gateway, index) => {
      if (props.natAlarmNames?.[gateway.zone] === undefined) {
        fail(this, `natAlarmNames.${gateway.zone}`, undefined, `the alarm names of natGateways[${index}], the NAT gateway in ${gateway.zone}`);
      }
    });
    checkRatio(this, "jobFailureRatio", this.jobFailureRatio);
    checkIntegerRange(this, "jobFailureMinimumJobs", this.jobFailureMinimumJobs, 1, 100000);
    checkRatio(this, "workersNearMax", this.workersNearMax);
    props.shards.forEach((shard, index) => {
      checkIntegerRange(this, `shards[${index}].maxInstances`, shard.maxInstances, 1, 1000);
      checkNonEmpty(this, `shards[${index}].managerGroupNames`, shard.managerGroupNames, "manager group");
      checkNonEmpty(this, `shards[${index}].workerGroupNames`, shard.workerGroupNames, "worker group");
    });
    (props.emails ?? []).forEach((email, index) => checkPattern(this, `emails[${index}]`, email, EMAIL, "an email address"));
    (props.webhooks ?? []).forEach((url, index) => checkPattern(this, `webhooks[${index}]`, url, HTTPS_URL, "an https:// URL"));
    (props.topicArns ?? []).forEach((arn, index) =>
      checkPattern(this, `topicArns[${index}]`, arn, SNS_TOPIC_ARN, "an SNS topic ARN such as arn:aws:sns:eu-west-1:123456789012:alerts"),
    );
  }

  private monitorShard(shard: MonitoredShard): void {
    const { props } = this;
    const logGroup = new CloudwatchLogGroup(this, `log-group-${shard.name}`, {
      name: shard.logGroupName,
      retentionInDays: this.logRetentionDays,
      tags: props.tags,
    });
    this.logGroups[shard.name] = logGroup;
    const namespace = this.metricNamespace(shard.name);
    for (const [metric, pattern, suffix, name] of [
      [JOBS_FAILED_METRIC, JOB_FAILED_PATTERN, "jobs-failed", shard.names.jobsFailedFilter],
      [JOBS_FINISHED_METRIC, JOB_FINISHED_PATTERN, "jobs-finished", shard.names.jobsFinishedFilter],
      [JOB_REQUESTS_FAILED_METRIC, JOB_REQUEST_FAILED_PATTERN, "job-requests-failed", shard.names.jobRequestsFailedFilter],
    ] as const) {
      new CloudwatchLogMetricFilter(this, `${suffix}-filter-${shard.name}`, {
        name,
        logGroupName: logGroup.name,
        pattern,
        metricTransformation: { name: metric, namespace, value: "1", unit: "Count" },
      });
    }
    const actions = { alarmActions: this.alarmActions, okActions: this.alarmActions };

    shard.managerGroupNames.forEach((groupName, index) => {
      new CloudwatchMetricAlarm(this, `manager-unhealthy-${groupName}`, {
        alarmName: shard.names.managerUnhealthyAlarms[index],
        alarmDescription: `Runner manager ${groupName} has had no instance in service for ${this.managerAbsentForSeconds / 60} minutes.`,
        namespace: "AWS/AutoScaling",
        metricName: "GroupInServiceInstances",
        dimensions: { AutoScalingGroupName: groupName },
        statistic: "Minimum",
        period: 60,
        evaluationPeriods: this.managerAbsentForSeconds / 60,
        comparisonOperator: "LessThanThreshold",
        threshold: 1,
        // Group metrics are sent every minute while collection is on; their absence is itself a fault.
        treatMissingData: "breaching",
        ...actions,
        tags: props.tags,
      });
    });

    // A hang is not a failure: until a bound ends it, the instance is InService and nothing logs. The heartbeat
    // comes from the boot itself (1 once gitlab-runner runs); the slot's Maximum counts the draining old manager
    // (still 1) while its successor waits for it, so a roll does not fire it.
    shard.managerGroupNames.forEach((groupName, slot) => {
      new CloudwatchMetricAlarm(this, `manager-heartbeat-${groupName}`, {
        alarmName: shard.names.managerHeartbeatAlarms[slot],
        alarmDescription:
          `No gitlab-runner has run on runner manager ${groupName} for ${this.managerHeartbeatMissingForSeconds / 60} minutes, or its heartbeat stopped ` +
          "(a boot that hangs or keeps failing, an instance that cannot reach CloudWatch). journalctl -t runner-fleet-manager on the instance.",
        namespace,
        metricName: MANAGER_HEARTBEAT_METRIC,
        dimensions: { Shard: shard.name, Slot: String(slot) },
        statistic: "Maximum",
        period: 60,
        evaluationPeriods: this.managerHeartbeatMissingForSeconds / 60,
        comparisonOperator: "LessThanThreshold",
        threshold: 1,
        // No heartbeat at all is the worst case: no manager, or one that cannot even report.
        treatMissingData: "breaching",
        ...actions,
        tags: props.tags,
      });
    });

    // A manager whose boot fails reports itself Unhealthy and is replaced; each replacement is InService
    // while it boots, so "no instance in service" may never fire. The failed boot records a BootFailures
    // point itself (scripts/manager/cloud/aws.sh), before any agent runs.
    new CloudwatchMetricAlarm(this, `boot-failed-${shard.name}`, {
      alarmName: shard.names.bootFailedAlarm,
      alarmDescription: `A runner manager of shard ${shard.name} failed to boot (journalctl -t runner-fleet-manager on the instance, or its console output).`,
      namespace,
      metricName: BOOT_FAILURES_METRIC.aws,
      statistic: "Sum",
      period: 300,
      evaluationPeriods: 1,
      comparisonOperator: "GreaterThanOrEqualToThreshold",
      threshold: 1,
      treatMissingData: "notBreaching",
      ...actions,
      tags: props.tags,
    });

    new CloudwatchMetricAlarm(this, `jobs-failing-${shard.name}`, {
      alarmName: shard.names.jobsFailingAlarm,
      alarmDescription:
        `At least ${this.jobFailureRatio * 100}% of the jobs shard ${shard.name} finished in 15 minutes failed for system reasons ` +
        `(windows with fewer than ${this.jobFailureMinimumJobs} finished jobs are ignored).`,
      comparisonOperator: "GreaterThanOrEqualToThreshold",
      threshold: this.jobFailureRatio,
      evaluationPeriods: 1,
      treatMissingData: "notBreaching",
      metricQuery: [
        {
          id: "failed",
          metric: { namespace, metricName: JOBS_FAILED_METRIC, stat: "Sum", period: JOB_FAILURE_WINDOW_SECONDS },
          returnData: false,
        },
        {
          id: "finished",
          metric: { namespace, metricName: JOBS_FINISHED_METRIC, stat: "Sum", period: JOB_FAILURE_WINDOW_SECONDS },
          returnData: false,
        },
        {
          id: "ratio",
          label: "Failed share of finished jobs",
          expression: `IF(finished >= ${this.jobFailureMinimumJobs}, FILL(failed, 0) / finished, 0)`,
          returnData: true,
        },
      ],
      ...actions,
      tags: props.tags,
    });

    // Every VM healthy, /metrics answering, and no job taken: a revoked token, a changed certificate, broken egress.
    new CloudwatchMetricAlarm(this, `job-requests-failing-${shard.name}`, {
      alarmName: shard.names.jobRequestsFailingAlarm,
      alarmDescription:
        `The managers of shard ${shard.name} failed ${JOB_REQUEST_FAILURE_ALERT.threshold} or more job requests to GitLab in ${JOB_REQUEST_FAILURE_ALERT.windowSeconds / 60} minutes ` +
        '(403: token revoked or runner deleted; "client error": TLS, DNS or egress; 5xx: GitLab). Pipelines stay pending. Read "Checking for jobs..." in the runner log.',
      namespace,
      metricName: JOB_REQUESTS_FAILED_METRIC,
      statistic: "Sum",
      period: JOB_REQUEST_FAILURE_ALERT.windowSeconds,
      evaluationPeriods: 1,
      comparisonOperator: "GreaterThanOrEqualToThreshold",
      threshold: JOB_REQUEST_FAILURE_ALERT.threshold,
      treatMissingData: "notBreaching",
      ...actions,
      tags: props.tags,
    });

    const capacityThreshold = this.capacityAlarmThreshold(shard.maxInstances);
    shard.workerGroupNames.forEach((groupName, index) => {
      new CloudwatchMetricAlarm(this, `capacity-near-max-${groupName}`, {
        alarmName: shard.names.workersNearMaxAlarms[index],
        alarmDescription: `Worker group ${groupName} runs ${capacityThreshold} or more of its ${shard.maxInstances} instances.`,
        namespace: "AWS/AutoScaling",
        metricName: "GroupInServiceInstances",
        dimensions: { AutoScalingGroupName: groupName },
        statistic: "Maximum",
        period: 300,
        evaluationPeriods: 1,
        comparisonOperator: "GreaterThanOrEqualToThreshold",
        threshold: capacityThreshold,
        treatMissingData: "notBreaching",
        ...actions,
        tags: props.tags,
      });
    });
  }

  /**
   * A NAT gateway that runs out of source ports (55,000 connections to one destination per address) or drops
   * packets: jobs' pulls and GitLab requests time out. Missing data is no traffic, so it never fires.
   */
  private monitorNatGateway(gateway: { readonly zone: string; readonly id: string }): void {
    const names = this.props.natAlarmNames![gateway.zone];
    const actions = { alarmActions: this.alarmActions, okActions: this.alarmActions, tags: this.props.tags };
    const natMetric = (metricName: string) => ({ namespace: "AWS/NATGateway", metricName, dimensions: { NatGatewayId: gateway.id }, stat: "Sum", period: 300 });
    new CloudwatchMetricAlarm(this, `nat-port-allocation-errors-${gateway.zone}`, {
      alarmName: names.portAllocationErrors,
      alarmDescription:
        `The NAT gateway in ${gateway.zone} could not allocate a source port (ErrorPortAllocation): connections from workers and managers fail. ` +
        'Add an Elastic IP to the gateway (each holds 55,000 connections per destination), or use network.nat: "per-zone".',
      namespace: "AWS/NATGateway",
      metricName: "ErrorPortAllocation",
      dimensions: { NatGatewayId: gateway.id },
      statistic: "Sum",
      period: 300,
      evaluationPeriods: 1,
      comparisonOperator: "GreaterThanThreshold",
      threshold: 0,
      treatMissingData: "notBreaching",
      ...actions,
    });
    new CloudwatchMetricAlarm(this, `nat-packets-dropped-${gateway.zone}`, {
      alarmName: names.packetsDropped,
      alarmDescription: `The NAT gateway in ${gateway.zone} dropped more than 0.01% of its packets in 5 minutes (PacketsDropCount): jobs see timeouts to registries and GitLab.`,
      comparisonOperator: "GreaterThanThreshold",
      threshold: 0.01,
      evaluationPeriods: 1,
      treatMissingData: "notBreaching",
      metricQuery: [
        { id: "dropped", metric: natMetric("PacketsDropCount"), returnData: false },
        { id: "fromSource", metric: natMetric("PacketsInFromSource"), returnData: false },
        { id: "fromDestination", metric: natMetric("PacketsInFromDestination"), returnData: false },
        {
          id: "droppedPercent",
          label: "Dropped share of packets (%)",
          expression: "IF((fromSource + fromDestination) > 0, 100 * FILL(dropped, 0) / (fromSource + fromDestination), 0)",
          returnData: true,
        },
      ],
      ...actions,
    });
  }

  /** One dashboard row per shard: managers, workers, jobs, and the latest warnings from the log. */
  private shardWidgets(shard: MonitoredShard, row: number): object[] {
    const { region } = this.props;
    const y = row * 6;
    const groupMetric = (name: string) => ["AWS/AutoScaling", "GroupInServiceInstances", "AutoScalingGroupName", name];
    const namespace = this.metricNamespace(shard.name);
    return [
      {
        type: "metric", x: 0, y, width: 6, height: 6,
        properties: { title: `${shard.name}: managers in service`, region, stat: "Minimum", period: 60, view: "timeSeries", metrics: shard.managerGroupNames.map(groupMetric) },
      },
      {
        type: "metric", x: 6, y, width: 6, height: 6,
        properties: {
          title: `${shard.name}: workers in service`, region, stat: "Maximum", period: 60, view: "timeSeries",
          metrics: shard.workerGroupNames.map(groupMetric),
          annotations: { horizontal: [{ label: "max instances", value: shard.maxInstances }] },
        },
      },
      {
        type: "metric", x: 12, y, width: 6, height: 6,
        properties: {
          title: `${shard.name}: jobs`, region, stat: "Sum", period: 300, view: "timeSeries",
          metrics: [[namespace, JOBS_FINISHED_METRIC], [namespace, JOBS_FAILED_METRIC]],
        },
      },
      {
        type: "log", x: 18, y, width: 6, height: 6,
        properties: {
          title: `${shard.name}: warnings and errors`, region, view: "table",
          query: `SOURCE '${shard.logGroupName}' | fields @timestamp, level, msg | filter level = "warning" or level = "error" | sort @timestamp desc | limit 50`,
        },
      },
    ];
  }
}
