/**
 * Alerts and a dashboard for a cell's runner fleet, on the Prometheus metrics each manager's
 * Ops Agent ships to Cloud Monitoring (queried with PromQL).
 *
 * CONTRACT with the manager startup script: the Ops Agent's Prometheus receiver scrapes
 * localhost:9252 with job name MANAGER_METRICS_JOB and adds the static labels in
 * MANAGER_METRIC_LABELS (cell id, shard name, slot number) to every sample
 * (lib/render/ops-agent-config.ts writes that configuration); the queries below select a shard by
 * them. test/render/ops-agent-labels.test.ts holds the two together.
 */
import { MonitoringAlertPolicy } from "@cdktf/provider-google/lib/monitoring-alert-policy";
import { MonitoringDashboard } from "@cdktf/provider-google/lib/monitoring-dashboard";
import { MonitoringNotificationChannel } from "@cdktf/provider-google/lib/monitoring-notification-channel";
import { Annotations } from "cdktf";
import { Construct } from "constructs";
import { BOOT_FAILURES_METRIC, MANAGER_METRIC_LABELS, MANAGER_METRICS_JOB } from "../../lib/fleet-contract";
import { checkIntegerRange, checkNonEmpty, checkPattern, checkRatio, checkUnique } from "./checks";


/** A metric every running gitlab-runner exports (value 1, labels: version, revision, ...). */
export const MANAGER_PRESENCE_METRIC = "gitlab_runner_version_info";

/** The window of the job failure ratio. */
export const JOB_FAILURE_WINDOW = "15m";

/** Kinds of alert created per shard. */
/** BOOT_FAILURES_METRIC.google as Cloud Monitoring's PromQL names it (Cloud Monitoring docs, "Mapping Cloud Monitoring metrics to PromQL"). */
export const BOOT_FAILURES_PROMQL_METRIC = promqlMetricName(BOOT_FAILURES_METRIC.google);

/** custom.googleapis.com/a/b -> custom_googleapis_com:a_b: the domain's dots and the path's slashes become underscores, split by a colon. */
export function promqlMetricName(metricType: string): string {
  const slash = metricType.indexOf("/");
  return `${metricType.slice(0, slash).replace(/\./g, "_")}:${metricType.slice(slash + 1).replace(/[./]/g, "_")}`;
}

export type FleetAlertKind = "managers-missing" | "boot-failed" | "job-failure-ratio" | "concurrency-saturation" | "workers-near-max";

export interface MonitoredShardProps {
  /** Shard name, as in the `runner_shard` metric label. */
  readonly name: string;
  /** Manager slots the shard runs; fewer reporting managers raise an alert. */
  readonly managerCount: number;
}

export interface FleetMonitoringProps {
  /** Project of the policies, channels and dashboard. @default - the provider's project */
  readonly project?: string;
  /** Cell id, as in the `gitlab_cell` metric label; also names the policies and dashboard. */
  readonly cellId: string;
  /** The shards to watch. */
  readonly shards: readonly MonitoredShardProps[];
  /** E-mail addresses that get a notification channel each. @default [] */
  readonly emails?: readonly string[];
  /** HTTPS webhooks that get a webhook_tokenauth notification channel each. @default [] */
  readonly webhookUrls?: readonly string[];
  /** Existing notification channels, by full name ("projects/<p>/notificationChannels/<id>"), used as given. @default [] */
  readonly existingChannels?: readonly string[];
  /** Alert when fewer managers than expected report metrics for this many seconds. @default 300 */
  readonly managerAbsentForSeconds?: number;
  /** Alert when this share of jobs fails (for runner reasons) over 15 minutes. @default 0.25 */
  readonly jobFailureRatio?: number;
  /** Alert when a manager's running jobs reach this share of its `concurrent`. @default 0.9 */
  readonly concurrencySaturation?: number;
  /** Alert when a manager's workers reach this share of its max_instances. @default 0.9 */
  readonly workersNearMax?: number;
  /** User labels of the alert policies. @default {} */
  readonly userLabels?: Readonly<Record<string, string>>;
  /** Create the fleet dashboard. @default true */
  readonly dashboard?: boolean;
}

/** One created alert, for callers and tests that need to know what is watched and how. */
export interface FleetAlert {
  readonly shard: string;
  readonly kind: FleetAlertKind;
  readonly query: string;
  readonly threshold: number;
  /** How long the query must hold before the alert fires. */
  readonly durationSeconds: number;
  readonly policy: MonitoringAlertPolicy;
}

const CHANNEL_NAME = /^projects\/[^/]+\/notificationChannels\/[^/]+$/;

export class FleetMonitoring extends Construct {
  public readonly managerAbsentForSeconds: number;
  public readonly jobFailureRatio: number;
  public readonly concurrencySaturation: number;
  public readonly workersNearMax: number;
  /** Channels created here. */
  public readonly channels: MonitoringNotificationChannel[] = [];
  /** Every channel the policies notify: created ones (as tokens) and existing ones. */
  public readonly notificationChannels: readonly string[];
  public readonly alerts: FleetAlert[] = [];
  public readonly dashboard?: MonitoringDashboard;

  constructor(scope: Construct, id: string, props: FleetMonitoringProps) {
    super(scope, id);
    this.managerAbsentForSeconds = props.managerAbsentForSeconds ?? 300;
    this.jobFailureRatio = props.jobFailureRatio ?? 0.25;
    this.concurrencySaturation = props.concurrencySaturation ?? 0.9;
    this.workersNearMax = props.workersNearMax ?? 0.9;
    this.checkProps(props);

    (props.emails ?? []).forEach((email, index) => {
      this.channels.push(
        new MonitoringNotificationChannel(this, `Email${index}`, {
          project: props.project,
          type: "email",
          displayName: `${props.cellId} runners: ${email}`,
          labels: { email_address: email },
        }),
      );
    });
    (props.webhookUrls ?? []).forEach((url, index) => {
      this.channels.push(
        new MonitoringNotificationChannel(this, `Webhook${index}`, {
          project: props.project,
          type: "webhook_tokenauth",
          displayName: `${props.cellId} runners: webhook ${index + 1}`,
          labels: { url },
        }),
      );
    });
    this.notificationChannels = [...this.channels.map((channel) => channel.name), ...(props.existingChannels ?? [])];
    if (this.notificationChannels.length === 0) {
      Annotations.of(this).addWarning("Monitoring has no notification channel: alerts will fire without notifying anyone.");
    }

    for (const shard of props.shards) this.addShardAlerts(props, shard);
    if (props.dashboard ?? true) this.dashboard = this.addDashboard(props);
  }

  private addShardAlerts(props: FleetMonitoringProps, shard: MonitoredShardProps): void {
    const selector = shardSelector(props.cellId, shard.name);
    const slot = MANAGER_METRIC_LABELS.slot;
    const name = `${props.cellId}/${shard.name}`;

    this.addAlert(props, shard, {
      kind: "managers-missing",
      title: `${name}: runner managers missing`,
      severity: "CRITICAL",
      threshold: shard.managerCount,
      // Every running runner exports its version info (value 1); a stopped runner or VM reports nothing.
      // Not `up`: it is a scrape-time series of Prometheus servers, not something the runner exports.
      query: `(count(${MANAGER_PRESENCE_METRIC}{${selector}}) or vector(0)) < ${shard.managerCount}`,
      durationSeconds: this.managerAbsentForSeconds,
      documentation:
        `Fewer than ${shard.managerCount} runner managers of ${name} have reported metrics for ${this.managerAbsentForSeconds}s. ` +
        "Check the managed instance groups (autohealing), the startup script log (journalctl -u google-startup-scripts) and the gitlab-runner service.",
    });
    this.addAlert(props, shard, {
      kind: "boot-failed",
      title: `${name}: a runner manager failed to boot`,
      severity: "CRITICAL",
      threshold: 0,
      // A manager whose boot fails writes one point of this custom metric (scripts/manager/cloud/google.sh)
      // before any agent runs; autohealing then recreates it, so "managers missing" alone may flap.
      // Cloud Monitoring's PromQL names custom.googleapis.com/a/b custom_googleapis_com:a_b.
      query: `sum(max_over_time(${BOOT_FAILURES_PROMQL_METRIC}{${shardLabels(props.cellId, shard.name)}}[10m])) > 0`,
      durationSeconds: 0,
      documentation:
        `A runner manager of ${name} reported a failed boot. Read its startup script log (journalctl -t runner-fleet-manager, ` +
        "or the serial console) for the FAILED line; the group recreates the VM, which fails again until the cause is fixed.",
    });
    this.addAlert(props, shard, {
      kind: "job-failure-ratio",
      title: `${name}: job failure ratio above ${this.jobFailureRatio}`,
      severity: "WARNING",
      threshold: this.jobFailureRatio,
      // Script failures are the job author's, not the fleet's; every other reason is.
      query:
        `sum(rate(gitlab_runner_failed_jobs_total{${selector},failure_reason!="script_failure"}[${JOB_FAILURE_WINDOW}]))` +
        ` / sum(rate(gitlab_runner_jobs_total{${selector}}[${JOB_FAILURE_WINDOW}])) > ${this.jobFailureRatio}`,
      durationSeconds: 0,
      documentation:
        `More than ${this.jobFailureRatio * 100}% of the jobs of ${name} failed for reasons other than the job script over ${JOB_FAILURE_WINDOW}. ` +
        "Look at gitlab_runner_failed_jobs_total by failure_reason and the runner log.",
    });
    this.addAlert(props, shard, {
      kind: "concurrency-saturation",
      title: `${name}: running jobs near concurrent`,
      severity: "WARNING",
      threshold: this.concurrencySaturation,
      query:
        `sum by (${slot}) (gitlab_runner_jobs{${selector}}) / sum by (${slot}) (gitlab_runner_concurrent{${selector}})` +
        ` > ${this.concurrencySaturation}`,
      durationSeconds: 300,
      documentation:
        `A manager of ${name} runs more than ${this.concurrencySaturation * 100}% of its concurrent jobs; jobs will queue. ` +
        "Raise managers.concurrent or managers.count.",
    });
    this.addAlert(props, shard, {
      kind: "workers-near-max",
      title: `${name}: workers near max_instances`,
      severity: "WARNING",
      threshold: this.workersNearMax,
      query:
        `sum by (${slot}) (fleeting_provisioner_instances{${selector},state!="deleting"})` +
        ` / sum by (${slot}) (fleeting_provisioner_max_instances{${selector}}) > ${this.workersNearMax}`,
      durationSeconds: 300,
      documentation:
        `A manager of ${name} uses more than ${this.workersNearMax * 100}% of its worker max_instances; new jobs will wait for capacity. ` +
        "Raise workers.max_instances (and check the zone's quota).",
    });
  }

  private addAlert(
    props: FleetMonitoringProps,
    shard: MonitoredShardProps,
    alert: {
      kind: FleetAlertKind;
      title: string;
      severity: "CRITICAL" | "WARNING";
      threshold: number;
      query: string;
      durationSeconds: number;
      documentation: string;
    },
  ): void {
    const policy = new MonitoringAlertPolicy(this, `${shard.name}-${alert.kind}`, {
      project: props.project,
      displayName: alert.title,
      combiner: "OR",
      severity: alert.severity,
      conditions: [
        {
          displayName: alert.title,
          conditionPrometheusQueryLanguage: {
            query: alert.query,
            duration: `${alert.durationSeconds}s`,
            evaluationInterval: "60s",
            // The metrics appear only once managers run, which is after the first apply.
            disableMetricValidation: true,
          },
        },
      ],
      notificationChannels: [...this.notificationChannels],
      alertStrategy: { autoClose: "1800s" },
      documentation: { content: alert.documentation, mimeType: "text/markdown" },
      userLabels: { ...props.userLabels, "runner-shard": shard.name },
    });
    this.alerts.push({
      shard: shard.name,
      kind: alert.kind,
      query: alert.query,
      threshold: alert.threshold,
      durationSeconds: alert.durationSeconds,
      policy,
    });
  }

  private addDashboard(props: FleetMonitoringProps): MonitoringDashboard {
    const { cell, shard, slot } = MANAGER_METRIC_LABELS;
    const selector = `job="${MANAGER_METRICS_JOB}",${cell}="${props.cellId}"`;
    const charts: Array<{ title: string; query: string }> = [
      { title: "Runner managers reporting", query: `count by (${shard}) (${MANAGER_PRESENCE_METRIC}{${selector}})` },
      {
        title: "Running jobs / concurrent, per manager",
        query: `sum by (${shard}, ${slot}) (gitlab_runner_jobs{${selector}}) / sum by (${shard}, ${slot}) (gitlab_runner_concurrent{${selector}})`,
      },
      {
        title: `Failed jobs per second by reason (${JOB_FAILURE_WINDOW} rate)`,
        query: `sum by (${shard}, failure_reason) (rate(gitlab_runner_failed_jobs_total{${selector}}[${JOB_FAILURE_WINDOW}]))`,
      },
      {
        title: "Worker instances by state",
        query: `sum by (${shard}, state) (fleeting_provisioner_instances{${selector}})`,
      },
      {
        title: "Worker instances / max_instances, per manager",
        query: `sum by (${shard}, ${slot}) (fleeting_provisioner_instances{${selector},state!="deleting"}) / sum by (${shard}, ${slot}) (fleeting_provisioner_max_instances{${selector}})`,
      },
      { title: "Jobs started per second", query: `sum by (${shard}) (rate(gitlab_runner_jobs_total{${selector}}[5m]))` },
    ];
    const dashboard = {
      displayName: `GitLab runners: ${props.cellId}`,
      mosaicLayout: {
        columns: 48,
        tiles: charts.map((chart, index) => ({
          xPos: (index % 2) * 24,
          yPos: Math.floor(index / 2) * 16,
          width: 24,
          height: 16,
          widget: {
            title: chart.title,
            xyChart: { dataSets: [{ plotType: "LINE", timeSeriesQuery: { prometheusQuery: chart.query } }] },
          },
        })),
      },
    };
    return new MonitoringDashboard(this, "Dashboard", { project: props.project, dashboardJson: JSON.stringify(dashboard) });
  }

  private checkProps(props: FleetMonitoringProps): void {
    checkNonEmpty(this, "shards", props.shards, "shard");
    checkUnique(this, "shards[].name", props.shards.map((shard) => shard.name));
    props.shards.forEach((shard, i) => checkIntegerRange(this, `shards[${i}].managerCount`, shard.managerCount, 1, 1000));
    checkIntegerRange(this, "managerAbsentForSeconds", this.managerAbsentForSeconds, 60, 86400);
    checkRatio(this, "jobFailureRatio", this.jobFailureRatio);
    checkRatio(this, "concurrencySaturation", this.concurrencySaturation);
    checkRatio(this, "workersNearMax", this.workersNearMax);
    (props.emails ?? []).forEach((email, i) => checkPattern(this, `emails[${i}]`, email, /^[^@\s]+@[^@\s]+$/, "an e-mail address"));
    (props.webhookUrls ?? []).forEach((url, i) => checkPattern(this, `webhookUrls[${i}]`, url, /^https:\/\//, "an https:// URL"));
    (props.existingChannels ?? []).forEach((channel, i) =>
      checkPattern(this, `existingChannels[${i}]`, channel, CHANNEL_NAME, 'a notification channel name "projects/<project>/notificationChannels/<id>"'),
    );
  }
}

/** PromQL label matchers of one shard's manager metrics. */
export function shardSelector(cellId: string, shardName: string): string {
  return `job="${MANAGER_METRICS_JOB}",${shardLabels(cellId, shardName)}`;
}

/** The shard's cell and shard labels, without the scrape job: series the managers write themselves have no job. */
export function shardLabels(cellId: string, shardName: string): string {
  const { cell, shard } = MANAGER_METRIC_LABELS;
  return `${cell}="${cellId}",${shard}="${shardName}"`;
}
