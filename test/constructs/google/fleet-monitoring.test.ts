import { MonitoringNotificationChannel } from "@cdktf/provider-google/lib/monitoring-notification-channel";
import { FleetMonitoring, promqlMetricName, type FleetMonitoringProps } from "../../../constructs/google/fleet-monitoring";
import { MANAGER_METRIC_LABELS, MANAGER_METRICS_JOB } from "../../../lib/contract/fleet-contract";
import { UserInputError } from "../../../lib/process/errors";
import { googleTestStack, resourcesOf, synth, warningsOf } from "./support";

const EXISTING_CHANNEL = "projects/acme-test-project/notificationChannels/1234567890";

function monitoringOf(props: Partial<FleetMonitoringProps> = {}) {
  const stack = googleTestStack();
  const monitoring = new FleetMonitoring(stack, "monitoring", {
    cellId: "cell-9",
    shards: [
      { name: "small", managerCount: 2 },
      { name: "large", managerCount: 3 },
    ],
    emails: ["oncall@example.com"],
    webhookUrls: ["https://alerts.example.com/hook"],
    existingChannels: [EXISTING_CHANNEL],
    managerAbsentForSeconds: 420,
    jobFailureRatio: 0.3,
    concurrencySaturation: 0.8,
    workersNearMax: 0.85,
    ...props,
  });
  return { stack, monitoring, json: synth(stack) };
}

/** The PromQL condition of the policy named `displayName` in synthesized JSON. */
function conditionOf(json: string, displayName: string) {
  const policy = resourcesOf(json, "google_monitoring_alert_policy").find((p) => p.display_name === displayName);
  expect(policy).toBeDefined();
  return policy.conditions[0].condition_prometheus_query_language;
}

describe("FleetMonitoring", () => {
  test("creates six alert policies per shard", () => {
    const { json, monitoring } = monitoringOf();
    expect(resourcesOf(json, "google_monitoring_alert_policy")).toHaveLength(12);
    expect(monitoring.alerts.map((alert) => `${alert.shard}/${alert.kind}`)).toEqual([
      "small/managers-missing",
      "small/boot-failed",
      "small/job-failure-ratio",
      "small/job-requests-failing",
      "small/concurrency-saturation",
      "small/workers-near-max",
      "large/managers-missing",
      "large/boot-failed",
      "large/job-failure-ratio",
      "large/job-requests-failing",
      "large/concurrency-saturation",
      "large/workers-near-max",
    ]);
  });

  test("alerts at once on a failed boot: the custom metric the managers write, as Cloud Monitoring's PromQL names it", () => {
    const { json } = monitoringOf();
    const condition = conditionOf(json, "cell-9/large: a runner manager failed to boot");
    expect(condition.query).toBe('sum(max_over_time(custom_googleapis_com:runner_fleet_boot_failures{gitlab_cell="cell-9",runner_shard="large"}[10m])) > 0');
    expect(condition.duration).toBe("0s");
    expect(promqlMetricName("custom.googleapis.com/runner_fleet/boot_failures")).toBe("custom_googleapis_com:runner_fleet_boot_failures");
    expect(promqlMetricName("compute.googleapis.com/instance/cpu/utilization")).toBe("compute_googleapis_com:instance_cpu_utilization");
  });

  test("alerts when fewer managers than the shard runs report metrics for the absence threshold", () => {
    const { json } = monitoringOf();
    const condition = conditionOf(json, "cell-9/large: runner managers missing");
    expect(condition.duration).toBe("420s");
    expect(condition.query).toBe(
      `(count(gitlab_runner_version_info{job="${MANAGER_METRICS_JOB}",gitlab_cell="cell-9",runner_shard="large"}) or vector(0)) < 3`,
    );
    expect(condition.disable_metric_validation).toBe(true);
  });

  test("the other alerts compare against the thresholds given", () => {
    const { json } = monitoringOf();
    const failures = conditionOf(json, "cell-9/small: job failure ratio above 0.3").query;
    expect(failures).toMatch(/gitlab_runner_failed_jobs_total\{[^}]*runner_shard="small"[^}]*failure_reason="runner_system_failure"\}\[15m\]/);
    expect(failures).toMatch(/gitlab_runner_job_duration_seconds_count\{[^}]*\}\[15m\]\)\) >= 0\.3 and /);
    expect(failures).toMatch(/ >= 10$/);
    const saturation = conditionOf(json, "cell-9/small: running jobs near concurrent").query;
    expect(saturation).toMatch(/gitlab_runner_jobs\{.*\/ sum by \(runner_slot\) \(gitlab_runner_concurrent\{.*\}\) > 0\.8$/);
    const workers = conditionOf(json, "cell-9/small: workers near max_instances").query;
    expect(workers).toMatch(/fleeting_provisioner_instances\{.*\/ sum by \(runner_slot\) \(fleeting_provisioner_max_instances\{.*\}\) > 0\.85$/);
  });

  test("every query selects the shard through the labels the managers' scrape config adds (the boot-failure points and the log-based metric carry them without a job)", () => {
    const { monitoring } = monitoringOf();
    expect(MANAGER_METRIC_LABELS).toEqual({ cell: "gitlab_cell", shard: "runner_shard", slot: "runner_slot" });
    for (const alert of monitoring.alerts) {
      const withoutJob = alert.kind === "boot-failed" || alert.kind === "job-requests-failing";
      const selector = withoutJob ? `{gitlab_cell="cell-9",runner_shard="${alert.shard}"}` : `job="gitlab-runner",gitlab_cell="cell-9",runner_shard="${alert.shard}"`;
      expect(alert.query).toContain(selector);
    }
  });

  test("notification channels come from the emails and webhooks; existing channels are used as given", () => {
    const { json } = monitoringOf();
    expect(json).toHaveResourceWithProperties(MonitoringNotificationChannel, {
      type: "email",
      labels: { email_address: "oncall@example.com" },
    });
    expect(json).toHaveResourceWithProperties(MonitoringNotificationChannel, {
      type: "webhook_tokenauth",
      labels: { url: "https://alerts.example.com/hook" },
    });
    expect(resourcesOf(json, "google_monitoring_notification_channel")).toHaveLength(2);
    for (const policy of resourcesOf(json, "google_monitoring_alert_policy")) {
      expect(policy.notification_channels).toEqual([
        expect.stringMatching(/^\$\{google_monitoring_notification_channel\..*Email0.*\.name\}$/),
        expect.stringMatching(/^\$\{google_monitoring_notification_channel\..*Webhook0.*\.name\}$/),
        EXISTING_CHANNEL,
      ]);
    }
  });

  test("warns when alerts would notify nobody", () => {
    const { stack } = monitoringOf({ emails: [], webhookUrls: [], existingChannels: [] });
    expect(warningsOf(stack).join("\n")).toMatch(/no notification channel/);
  });

  test("creates a dashboard of PromQL charts for the cell", () => {
    const { json } = monitoringOf();
    const dashboards = resourcesOf(json, "google_monitoring_dashboard");
    expect(dashboards).toHaveLength(1);
    const dashboard = JSON.parse(dashboards[0].dashboard_json);
    expect(dashboard.displayName).toBe("GitLab runners: cell-9");
    const queries: string[] = dashboard.mosaicLayout.tiles.map(
      (tile: { widget: { xyChart: { dataSets: Array<{ timeSeriesQuery: { prometheusQuery: string } }> } } }) =>
        tile.widget.xyChart.dataSets[0].timeSeriesQuery.prometheusQuery,
    );
    expect(queries.length).toBeGreaterThanOrEqual(4);
    for (const query of queries) expect(query).toContain('gitlab_cell="cell-9"');
  });

  test("defaults match the model's default thresholds", () => {
    const { monitoring } = monitoringOf({
      managerAbsentForSeconds: undefined,
      jobFailureRatio: undefined,
      concurrencySaturation: undefined,
      workersNearMax: undefined,
    });
    expect(monitoring.managerAbsentForSeconds).toBe(300);
    expect(monitoring.jobFailureRatio).toBe(0.25);
    expect(monitoring.concurrencySaturation).toBe(0.9);
    expect(monitoring.workersNearMax).toBe(0.9);
  });

  test("fails when an existing channel is not a full channel name", () => {
    expect(() => monitoringOf({ existingChannels: ["1234567890"] })).toThrow(UserInputError);
    expect(() => monitoringOf({ existingChannels: ["1234567890"] })).toThrow(
      /existingChannels\[0\] is "1234567890"; expected a notification channel name/,
    );
  });

  test("fails when a ratio threshold is above 1", () => {
    expect(() => monitoringOf({ jobFailureRatio: 25 })).toThrow(/jobFailureRatio is 25; expected a share/);
  });

  test("fails when a webhook is not https", () => {
    expect(() => monitoringOf({ webhookUrls: ["http://alerts.example.com/hook"] })).toThrow(/expected an https:\/\/ URL/);
  });
});
