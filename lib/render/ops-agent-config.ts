/**
 * The Google Cloud Ops Agent configuration of a runner manager: its Prometheus receiver scrapes the
 * runner's metrics on localhost and attaches the labels the alert policies and the dashboard select
 * a manager by (constructs/google/fleet-monitoring.ts). Without them no query matches, and no alert
 * can fire.
 *
 * The receiver takes Prometheus `scrape_configs` (Ops Agent "Collect Prometheus metrics" docs:
 * job_name, scrape_interval, metrics_path, static_configs with targets and labels, relabel_configs).
 * Static labels are the plainest way: the manager script is rendered per slot, so the values are
 * known when the file is written. The agent reads YAML; the file is written as JSON, which is YAML.
 *
 * Logs: the journal (receiver type systemd_journald), with the same three labels on each entry (a
 * modify_fields processor setting `labels."<key>"` to a static_value; Ops Agent "Logging processors"
 * docs). gitlab-runner writes its log to the journal as JSON lines (log_format json), which reach Cloud
 * Logging as the entry's jsonPayload.MESSAGE; the "job requests failing" log-based metric counts its failed
 * job requests from there (constructs/google/fleet-monitoring.ts), including the transport errors its
 * metrics never count (network/api_requests_collector.go, Observe: `if status == clientError { return }`).
 */
import { MANAGER_METRIC_LABELS, MANAGER_METRICS_JOB, RUNNER_METRICS_PORT } from "../contract/fleet-contract";
import type { RunnerModel, Shard } from "../model/schema";

/** Where the agent reads its configuration on the manager. */
export const OPS_AGENT_CONFIG_FILE = "/etc/google-cloud-ops-agent/config.yaml";

/** The labels manager `slot` of `shard` attaches to its metrics. */
export function managerMetricLabels(model: RunnerModel, shard: Shard, slot: number): Record<string, string> {
  return {
    [MANAGER_METRIC_LABELS.cell]: model.cell.id,
    [MANAGER_METRIC_LABELS.shard]: shard.name,
    [MANAGER_METRIC_LABELS.slot]: String(slot),
  };
}

/** The Ops Agent's names for the journal receiver and the processor that labels its entries. */
export const OPS_AGENT_JOURNAL = { receiver: "runner_fleet_journal", labels: "runner_fleet_labels", pipeline: "runner_fleet_journal_pipeline" } as const;

export function opsAgentConfig(model: RunnerModel, shard: Shard, slot: number): object {
  const labels = managerMetricLabels(model, shard, slot);
  return {
    logging: {
      receivers: { [OPS_AGENT_JOURNAL.receiver]: { type: "systemd_journald" } },
      processors: {
        [OPS_AGENT_JOURNAL.labels]: {
          type: "modify_fields",
          fields: Object.fromEntries(Object.entries(labels).map(([key, value]) => [`labels."${key}"`, { static_value: value }])),
        },
      },
      service: { pipelines: { [OPS_AGENT_JOURNAL.pipeline]: { receivers: [OPS_AGENT_JOURNAL.receiver], processors: [OPS_AGENT_JOURNAL.labels] } } },
    },
    metrics: {
      receivers: {
        prometheus: {
          type: "prometheus",
          config: {
            scrape_configs: [
              {
                job_name: MANAGER_METRICS_JOB,
                scrape_interval: "30s",
                metrics_path: "/metrics",
                static_configs: [{ targets: [`localhost:${RUNNER_METRICS_PORT}`], labels }],
              },
            ],
          },
        },
      },
      service: { pipelines: { prometheus_pipeline: { receivers: ["prometheus"] } } },
    },
  };
}

/** The configuration file's text. */
export function renderOpsAgentConfig(model: RunnerModel, shard: Shard, slot: number): string {
  return JSON.stringify(opsAgentConfig(model, shard, slot), null, 2);
}
