/**
 * Where gitlab-runner's metrics listener binds. `listen_address` serves /metrics and, on the same mux,
 * /debug/jobs/list and /debug/pprof (gitlab-runner commands/multi.go: serveMetrics, serveDebugData,
 * servePprof); gitlab-runner has no metrics-only listener and no setting that turns the debug handlers off.
 * So the listener is reachable over the network only where something must reach it there:
 * - Google Cloud: the managed instance group's autohealing health check probes it from Google's health
 *   checkers (the firewall admits those and network.monitoring_cidrs only); the Ops Agent scrapes locally.
 * - AWS: the health timer and the CloudWatch agent run on the manager itself, so it binds to loopback
 *   unless the model names monitoring_cidrs to scrape from.
 */
import type { RunnerModel } from "../model/schema";
import { RUNNER_METRICS_PORT } from "../contract/fleet-contract";

export function metricsListenAddress(model: RunnerModel): string {
  const scrapedOverNetwork = model.cloud.provider === "google" || model.network.monitoring_cidrs.length > 0;
  return scrapedOverNetwork ? `:${RUNNER_METRICS_PORT}` : `127.0.0.1:${RUNNER_METRICS_PORT}`;
}
