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
import { LoggingMetric } from "@cdktf/provider-google/lib/logging-metric";
import { MonitoringAlertPolicy } from "@cdktf/provider-google/lib/monitoring-alert-policy";
import { MonitoringDashboard } from "@cdktf/provider-google/lib/monitoring-dashboard";
import { MonitoringNotificationChannel } from "@cdktf/provider-google/lib/monitoring-notification-channel";
import { Annotations } from "cdktf";
import { Construct } from "constructs";
import { BOOT_FAILURES_METRIC, MANAGER_METRIC_LABELS, MANAGER_METRICS_JOB } from "../../lib/contract/fleet-contract";
import { JOB_FAILURE_ALERT, JOB_REQUEST_FAILURE_ALERT } from "../../lib/contract/fleet-alerts";
import { checkIntegerRange, checkNonEmpty, checkPattern, checkRatio, checkUnique } from "./checks";


/** A metric every running gitlab-runner exports (value 1, labels: version, revision, ...). */
export const MANAGER_PRESENCE_METRIC = "gitlab_runner_version_info";

/** The window of the job failure ratio (lib/contract/fleet-alerts.ts). */
export const JOB_FAILURE_WINDOW = `${JOB_FAILURE_ALERT.windowSeconds / 60}m`;

/** Kinds of alert created per shard. */
/** BOOT_FAILURES_METRIC.google as Cloud Monitoring's PromQL names it (Cloud Monitoring docs, "Mapping Cloud Monitoring metrics to PromQL"). */
export const BOOT_FAILURES_PROMQL_METRIC = promqlMetricName(BOOT_FAILURES_METRIC.google);

/** custom.googleapis.com/a/b -> custom_googleapis_com:a_b: the domain's dots and the path's slashes become underscores, split by a colon. */
export function promqlMetricName(metricType: string): string {
  const slash = metricType.indexOf("/");
  return `${metricType.slice(0, slash).replace(/\./g, "_")}:${metricType.slice(slash + 1).replace(/[./]/g, "_")}`;
}

/**
 * Cloud NAT's drop counter, as PromQL names it: compute.googleapis.com/nat/dropped_sent_packets_count on the
 * nat_gateway resource (labels gateway_name, router_id, region), with a `reason` metric label; OUT_OF_RESOURCES
 * counts packets dropped because the VM had no free NAT port or the gateway no address
 * (cloud.google.com/nat/docs/monitoring, "dropped_sent_packets_count").
 */
export const NAT_DROPPED_PACKETS_METRIC = promqlMetricName("compute.googleapis.com/nat/dropped_sent_packets_count");

/**
 * The log-based metric of a cell's failed job requests (one per cell: two cells may share a project). Its
 * name holds only characters PromQL keeps in a metric name.
 */
export function jobRequestFailuresMetricName(cellId: string): string {
  return `runner_fleet_job_request_failures_${cellId.replace(/[^A-Za-z0-9]/g, "_")}`;
}

/**
 * Cloud Logging's filter for gitlab-runner's failed job requests (lib/contract/fleet-alerts.ts), on the
 * journal entries the Ops Agent ships (lib/render/ops-agent-config.ts): gitlab-runner.service's lines,
 * its JSON line in jsonPayload.MESSAGE, each message searched as text in the entry. Every group is in
 * parentheses: in the Logging query language OR binds tighter than AND (Logging query language docs,
 * "Boolean operators").
 */
export function jobRequestFailureLogFilter(): string {
  const quote = (text: string) => JSON.stringify(text);
  const failed = JOB_REQUEST_FAILURE_ALERT.failedMessages.map((message) => `jsonPayload.MESSAGE:${quote(message)}`);
  const other = `(jsonPayload.MESSAGE:${quote(JOB_REQUEST_FAILURE_ALERT.otherStatusMessage)} AND NOT jsonPayload.MESSAGE:${quote(JOB_REQUEST_FAILURE_ALERT.conflictStatus)})`;
  return `jsonPayload._SYSTEMD_UNIT="gitlab-runner.service" AND (${[...failed, other].join(" OR ")})`;
}

export type FleetAlertKind = "managers-missing" | "boot-failed" | "job-failure-ratio" | "job-requests-failing" | "concurrency-saturation" | "workers-near-max";

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
  /**
   * Name of the cell's Cloud NAT gateway: alert when it drops packets for want of ports or addresses.
   * @default - no NAT alert (no NAT created by the cell)
   */
  readonly natGatewayName?: string;
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
  /** The cell-wide Cloud NAT drop alert (natGatewayName set); not one shard's, so not in `alerts`. */
  public readonly natAlert?: { readonly query: string; readonly durationSeconds: number; readonly policy: MonitoringAlertPolicy };
  public readonly dashboard?: MonitoringDashboard;
  /** The cell's log-based metric of failed job requests (labels: cell, shard, slot). */
  public readonly jobRequestFailures?: LoggingMetric;

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

    if (props.shards.length > 0) this.jobRequestFailures = this.addJobRequestFailuresMetric(props);
    for (const shard of props.shards) this.addShardAlerts(props, shard);
    if (props.natGatewayName) this.natAlert = this.addNatAlert(props, props.natGatewayName);
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
    // Same meaning as the AWS alarm (lib/contract/fleet-alerts.ts): runner system failures over finished jobs, in windows
    // with at least the minimum of finished jobs. job_duration_seconds is observed once per finished job.
    const failed = `(sum(increase(gitlab_runner_failed_jobs_total{${selector},failure_reason="${JOB_FAILURE_ALERT.failureReason}"}[${JOB_FAILURE_WINDOW}])) or vector(0))`;
    const finished = `sum(increase(gitlab_runner_job_duration_seconds_count{${selector}}[${JOB_FAILURE_WINDOW}]))`;
    this.addAlert(props, shard, {
      kind: "job-failure-ratio",
      title: `${name}: job failure ratio above ${this.jobFailureRatio}`,
      severity: "WARNING",
      threshold: this.jobFailureRatio,
      query: `${failed} / ${finished} >= ${this.jobFailureRatio} and ${finished} >= ${JOB_FAILURE_ALERT.minimumFinishedJobs}`,
      durationSeconds: 0,
      documentation:
        `At least ${this.jobFailureRatio * 100}% of the jobs ${name} finished in ${JOB_FAILURE_WINDOW} failed with a runner system failure ` +
        `(windows with fewer than ${JOB_FAILURE_ALERT.minimumFinishedJobs} finished jobs are ignored). Look at gitlab_runner_failed_jobs_total by failure_reason and the runner log ("Job failed (system failure)").`,
    });
    // Every VM healthy, /metrics answering, and no job taken: a revoked token, a changed certificate, broken egress.
    // Counted from the runner's log: its request metrics never count a transport error (lib/contract/fleet-alerts.ts).
    const requestWindow = `${JOB_REQUEST_FAILURE_ALERT.windowSeconds / 60}m`;
    const failures = promqlMetricName(`logging.googleapis.com/user/${jobRequestFailuresMetricName(props.cellId)}`);
    this.addAlert(props, shard, {
      kind: "job-requests-failing",
      title: `${name}: job requests to GitLab failing`,
      severity: "CRITICAL",
      threshold: JOB_REQUEST_FAILURE_ALERT.threshold,
      query: `sum(increase(${failures}{${shardLabels(props.cellId, shard.name)}}[${requestWindow}])) >= ${JOB_REQUEST_FAILURE_ALERT.threshold}`,
      durationSeconds: 0,
      documentation:
        `The managers of ${name} failed ${JOB_REQUEST_FAILURE_ALERT.threshold} or more job requests in ${requestWindow}: pipelines stay pending. ` +
        '"forbidden": the runner token was revoked or the runner deleted (re-run onboard); "client error": TLS, DNS or egress (CA file, proxy, Cloud NAT); ' +
        '"unavailable" or "failed" with a 5xx status: GitLab. Read "Checking for jobs..." in the runner log ' +
        `(Logs Explorer: ${jobRequestFailureLogFilter()}).`,
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

  /**
   * Counts the failed job requests in the managers' logs, labelled by the labels the Ops Agent puts on each
   * entry (lib/render/ops-agent-config.ts). A DELTA INT64 counter: the alert's increase() sums it.
   */
  private addJobRequestFailuresMetric(props: FleetMonitoringProps): LoggingMetric {
    const keys = [MANAGER_METRIC_LABELS.cell, MANAGER_METRIC_LABELS.shard, MANAGER_METRIC_LABELS.slot];
    return new LoggingMetric(this, "job-request-failures", {
      project: props.project,
      name: jobRequestFailuresMetricName(props.cellId),
      description: `Failed job requests to GitLab logged by the runner managers of cell ${props.cellId} (runner-fleet).`,
      filter: jobRequestFailureLogFilter(),
      metricDescriptor: {
        metricKind: "DELTA",
        valueType: "INT64",
        unit: "1",
        labels: keys.map((key) => ({ key, valueType: "STRING" })),
      },
      labelExtractors: Object.fromEntries(keys.map((key) => [key, `EXTRACT(labels."${key}")`])),
    });
  }

  /** Jobs that open connections through a NAT with no free port fail at connect; nothing on the VMs shows why. */
  private addNatAlert(props: FleetMonitoringProps, gateway: string) {
    const title = `${props.cellId}: Cloud NAT ${gateway} drops connections (OUT_OF_RESOURCES)`;
    // A DELTA counter: increase() over the window sums its points, whatever the sampling period.
    const query =
      `sum(increase(${NAT_DROPPED_PACKETS_METRIC}{monitored_resource="nat_gateway",gateway_name="${gateway}",reason="OUT_OF_RESOURCES"}[5m])) > 0`;
    const durationSeconds = 0;
    const policy = new MonitoringAlertPolicy(this, "nat-dropped-packets", {
      project: props.project,
      displayName: title,
      combiner: "OR",
      severity: "WARNING",
      conditions: [
        {
          displayName: title,
          conditionPrometheusQueryLanguage: { query, duration: `${durationSeconds}s`, evaluationInterval: "60s", disableMetricValidation: true },
        },
      ],
      notificationChannels: [...this.notificationChannels],
      alertStrategy: { autoClose: "1800s" },
      documentation: {
        content:
          `Cloud NAT ${gateway} dropped packets for want of ports or addresses: jobs see connection timeouts to registries and GitLab. ` +
          "Raise network.nat_ports.max_per_vm, or add network.nat_addresses (each serves 64512 / min_per_vm VMs). NAT logs (ERRORS_ONLY) name the VMs.",
        mimeType: "text/markdown",
      },
      userLabels: { ...props.userLabels },
    });
    return { query, durationSeconds, policy };
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
    if (props.natGatewayName !== undefined) checkPattern(this, "natGatewayName", props.natGatewayName, /^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/, "a Cloud NAT gateway name");
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
