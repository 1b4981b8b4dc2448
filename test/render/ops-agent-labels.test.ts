/**
 * Google Cloud monitoring sees what it alerts on: the labels every alert policy and dashboard query
 * selects by are the labels the Ops Agent configuration (written by the rendered manager startup
 * script, run against stubs) attaches to the runner's metrics. Every query parses in the Prometheus
 * project's PromQL grammar (in-process), and the real `promtool` checks its types (check rules) and its
 * behaviour on series labelled exactly as the agent labels them (test rules): "managers missing" stays
 * quiet on a healthy fleet and fires when a manager is gone.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Testing, TerraformStack } from "cdktf";
import { GoogleProvider } from "@cdktf/provider-google/lib/provider";
import { parse as parseYaml } from "yaml";
import type { FleetAlert } from "../../constructs/google/fleet-monitoring";
import { OPS_AGENT_CONFIG_FILE } from "../../lib/render/ops-agent-config";
import { googleFleetOf } from "../constructs/google/support";
import { exampleModel } from "../support/models";
import { byLabels, labelMatchers, promqlSyntaxErrors } from "../support/promql";
import { validatorPath } from "../support/validators";
import { expectSucceeded, managerPayload } from "./support/script-sandbox";
import { firstBoot } from "./support/shared-boots";

const model = exampleModel("cell-1");

interface ScrapeConfig {
  job_name: string;
  static_configs: Array<{ targets: string[]; labels?: Record<string, string> }>;
}

/** The labels each manager's agent attaches, read from the file its startup script wrote (one boot per manager, shared). */
function agentLabelsOf(shardIndex: number, slot: number): Record<string, string> {
  const shard = model.shards[shardIndex];
  const { sandbox, first: run } = firstBoot(managerPayload(model, shard, slot));
  expectSucceeded(run);
  const config = parseYaml(sandbox.file(OPS_AGENT_CONFIG_FILE.slice(1)));
  const scrapeConfigs: ScrapeConfig[] = config.metrics.receivers.prometheus.config.scrape_configs;
  expect(scrapeConfigs).toHaveLength(1);
  const [scrape] = scrapeConfigs;
  expect(scrape.static_configs[0].targets).toEqual(["localhost:9252"]);
  expect(config.metrics.service.pipelines.prometheus_pipeline.receivers).toEqual(["prometheus"]);
  return { job: scrape.job_name, ...scrape.static_configs[0].labels };
}

const stack = new TerraformStack(Testing.app(), "monitoring");
new GoogleProvider(stack, "google", {});
const fleet = googleFleetOf(stack, model);
const alerts: FleetAlert[] = fleet.monitoring!.alerts;
const [dashboardResource] = Object.values(JSON.parse(Testing.synth(stack)).resource.google_monitoring_dashboard) as Array<{ dashboard_json: string }>;
const dashboardQueries: string[] = JSON.parse(dashboardResource.dashboard_json).mosaicLayout.tiles.map(
  (tile: any) => tile.widget.xyChart.dataSets[0].timeSeriesQuery.prometheusQuery,
);

/** Labels the runner itself puts on its metrics; everything else a query selects by must come from the agent. */
const RUNNER_OWN_LABELS = new Set(["failure_reason", "state", "version", "runner", "system_id", "endpoint", "status"]);

describe("labels of the managers' metrics", () => {
  const managers = model.shards.flatMap((shard, shardIndex) =>
    Array.from({ length: shard.managers.count }, (_, slot) => ({ shard: shard.name, slot, labels: agentLabelsOf(shardIndex, slot) })),
  );

  it("are attached by each manager's Ops Agent: cell, shard and slot", () => {
    expect(managers.map((manager) => manager.labels)).toEqual(
      model.shards.flatMap((shard) =>
        Array.from({ length: shard.managers.count }, (_, slot) => ({
          job: "gitlab-runner",
          gitlab_cell: model.cell.id,
          runner_shard: shard.name,
          runner_slot: String(slot),
        })),
      ),
    );
  });

  it.each(alerts.map((alert) => [`${alert.shard} ${alert.kind}`, alert] as const))(
    "select the shard's managers in the %s alert, by labels the agent attaches",
    (_name, alert) => {
      const own = managers.filter((manager) => manager.shard === alert.shard);
      const selected = labelMatchers(alert.query).filter((matcher) => !RUNNER_OWN_LABELS.has(matcher.key));
      expect(selected.length).toBeGreaterThan(0);
      for (const manager of own) {
        for (const { key, op, value } of selected) {
          expect({ key, op, attached: manager.labels[key] }).toEqual({ key, op: "=", attached: value });
        }
      }
      for (const label of byLabels(alert.query)) expect(Object.keys(own[0].labels)).toContain(label);
    },
  );

  it("select managers in every dashboard chart by labels the agent attaches", () => {
    for (const query of dashboardQueries) {
      for (const { key, value } of labelMatchers(query).filter((matcher) => !RUNNER_OWN_LABELS.has(matcher.key))) {
        expect(managers.map((manager) => manager.labels[key])).toContain(value);
      }
      for (const label of byLabels(query).filter((label) => !RUNNER_OWN_LABELS.has(label))) {
        expect(Object.keys(managers[0].labels)).toContain(label);
      }
    }
  });
});

describe("labels of the managers' log entries", () => {
  /** The journal pipeline of manager `slot`'s agent: its receiver types and the labels its processors set. */
  function journalOf(shardIndex: number, slot: number) {
    const { sandbox } = firstBoot(managerPayload(model, model.shards[shardIndex], slot));
    const logging = parseYaml(sandbox.file(OPS_AGENT_CONFIG_FILE.slice(1))).logging;
    const [pipeline] = Object.values(logging.service.pipelines) as Array<{ receivers: string[]; processors: string[] }>;
    const labels: Record<string, string> = {};
    for (const name of pipeline.processors) {
      for (const [field, setting] of Object.entries(logging.processors[name].fields as Record<string, { static_value: string }>)) {
        labels[JSON.parse(field.replace(/^labels\./, ""))] = setting.static_value;
      }
    }
    return { receiverTypes: pipeline.receivers.map((name) => logging.receivers[name].type), labels };
  }

  it("are the metrics' labels (without job) on every journal entry, which the job-request log-based metric extracts", () => {
    const journal = journalOf(1, 1);
    expect(journal.receiverTypes).toEqual(["systemd_journald"]);
    const { job: _job, ...metricLabels } = agentLabelsOf(1, 1);
    expect(journal.labels).toEqual(metricLabels);
    const [metric] = Object.values(JSON.parse(Testing.synth(stack)).resource.google_logging_metric) as Array<{ label_extractors: Record<string, string> }>;
    expect(metric.label_extractors).toEqual(Object.fromEntries(Object.keys(metricLabels).map((key) => [key, `EXTRACT(labels."${key}")`])));
  });
});

describe("the queries, in the Prometheus PromQL grammar", () => {
  it.each([
    ...alerts.map((alert) => [`${alert.shard} ${alert.kind} alert`, alert.query] as const),
    ...dashboardQueries.map((query, index) => [`dashboard chart ${index}`, query] as const),
  ])("parse: %s", (_name, query) => {
    expect(promqlSyntaxErrors(query)).toEqual([]);
  });

  it("reads selectors' matchers and by() labels from the syntax tree, not from on() or without()", () => {
    const query = 'sum by (runner_shard, runner_slot) (m{gitlab_cell="cell-1",state!="deleting"}) / on(runner_shard) sum without (x) (n{a=~"b|c"})';
    expect(labelMatchers(query)).toEqual([
      { key: "gitlab_cell", op: "=", value: "cell-1" },
      { key: "state", op: "!=", value: "deleting" },
      { key: "a", op: "=~", value: "b|c" },
    ]);
    expect(byLabels(query)).toEqual(["runner_shard", "runner_slot"]);
  });

  it("finds where a broken query breaks (the check can fail)", () => {
    const unclosed = 'sum by (runner_shard) (rate(gitlab_runner_jobs_total{gitlab_cell="cell-1"}[5m])';
    expect(promqlSyntaxErrors(unclosed)).toEqual([`column ${unclosed.length + 1}: the query ends too soon`]);
    expect(promqlSyntaxErrors('count(gitlab_runner_version_info{gitlab_cell="cell-1") < 2')).toEqual(['column 54: ") < 2"']);
  });
});

describe("the queries, checked by promtool", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "promtool-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const alertName = (alert: FleetAlert) => `${alert.shard}-${alert.kind}`;
  const rulesFile = () => {
    const file = join(dir, "rules.yml");
    const rules = [
      ...alerts.map((alert) => ({ alert: alertName(alert), expr: alert.query, for: `${alert.durationSeconds}s` })),
      ...dashboardQueries.map((expr, index) => ({ record: `dashboard:chart_${index}`, expr })),
    ];
    writeFileSync(file, JSON.stringify({ groups: [{ name: "fleet", rules }] }));
    return file;
  };

  // The grammar above sees syntax only; promtool's parser also checks each function's argument types.
  it("type-checks every alert and dashboard query (promtool check rules)", () => {
    const result = spawnSync(validatorPath("promtool"), ["check", "rules", rulesFile()], { encoding: "utf8" });
    expect(result.stderr + result.stdout).toContain("SUCCESS");
    expect(result.status).toBe(0);
  });

  it("rejects a query that parses but has the wrong types (the check can fail)", () => {
    const file = join(dir, "mistyped.yml");
    // rate() takes a range vector; the grammar accepts an instant one.
    const expr = 'rate(gitlab_runner_jobs_total{gitlab_cell="cell-1"})';
    expect(promqlSyntaxErrors(expr)).toEqual([]);
    writeFileSync(file, JSON.stringify({ groups: [{ name: "fleet", rules: [{ record: "mistyped", expr }] }] }));
    const result = spawnSync(validatorPath("promtool"), ["check", "rules", file], { encoding: "utf8" });
    expect(result.stderr + result.stdout).toContain("expected type range vector");
    expect(result.status).toBe(1);
  });

  it("keeps 'managers missing' quiet on a healthy fleet and fires when a manager stops reporting", () => {
    const rules = rulesFile();
    const shard = model.shards[0];
    const labelsOf = (slot: number) => agentLabelsOf(0, slot);
    const versionInfo = (slot: number) =>
      `gitlab_runner_version_info${promLabels({ ...labelsOf(slot), version: shard.managers.runner_version, name: "gitlab-runner" })}`;
    const missing = alerts.find((alert) => alert.shard === shard.name && alert.kind === "managers-missing")!;
    const tests = {
      rule_files: [rules],
      evaluation_interval: "1m",
      tests: [
        {
          interval: "1m",
          // Every manager of the shard runs; the runner exports no `up`.
          input_series: Array.from({ length: shard.managers.count }, (_, slot) => ({ series: versionInfo(slot), values: "1x30" })),
          alert_rule_test: [{ eval_time: "20m", alertname: alertName(missing), exp_alerts: [] }],
        },
        {
          interval: "1m",
          // Slot 1 never reports.
          input_series: [{ series: versionInfo(0), values: "1x30" }],
          alert_rule_test: [{ eval_time: "20m", alertname: alertName(missing), exp_alerts: [{ exp_labels: {} }] }],
        },
      ],
    };
    const file = join(dir, "tests.yml");
    writeFileSync(file, JSON.stringify(tests));
    const result = spawnSync(validatorPath("promtool"), ["test", "rules", file], { encoding: "utf8" });
    expect(result.stdout + result.stderr).toContain("SUCCESS");
    expect(result.status).toBe(0);
  });
});

function promLabels(labels: Record<string, string>): string {
  return `{${Object.entries(labels).map(([key, value]) => `${key}=${JSON.stringify(value)}`).join(",")}}`;
}
