/**
 * Which config.toml settings a running gitlab-runner takes without a restart, read from its source (19.x;
 * the same code in 18.x unless noted):
 *
 * - commands/multi.go, run: the main loop calls updateWorkers and updateConfig; updateConfig checks the
 *   file every common.ReloadConfigInterval (3 s, common/consts.go) and, when its modification time is newer,
 *   reloadConfig loads it again. After that:
 *   - `concurrent`: updateWorkers starts or stops workers to match it on the next turn of the loop;
 *   - `check_interval`: feedRunners reads it from the current config on each round;
 *   - `log_level`, `log_format`: reloadConfig calls updateLoggingConfiguration;
 *   - `shutdown_timeout`: read from the current config when the runner stops (Stop, handleGracefulShutdown);
 *   - every [[runners]] entry is fed to the workers from the current config (feedRunners), so what is read
 *     per job request or per job follows at once: `limit` and `request_concurrency` (commands/builds_helper.go,
 *     acquireBuild and the request concurrency), [runners.docker], [runners.cache], `environment`,
 *     `clone_url`, `tls-ca-file`, and `instance_acquire_timeout` (executors/internal/autoscaler/executor.go,
 *     read when a job acquires a worker).
 *   - `listen_address` is not: setupMetricsAndDebugServer binds it once, in run.
 * - executors/internal/autoscaler/provider.go: the taskscaler of a [[runners]] entry is made once, in init,
 *   keyed by runnerScalerKey (URL and runner ID from 19.2, the token before). On a reload, Acquire sees
 *   ConfigLoadedAt change and calls ConfigureSchedule with the new [[runners.autoscaler.policy]] list: the
 *   policies apply live, at the next job the manager takes. Everything else init passes to taskscaler.New
 *   or the plugin stays as it was until the runner restarts: `plugin`, `plugin_config`, `connector_config`,
 *   `capacity_per_instance`, `max_use_count`, `max_instances`, `instance_ready_command` (captured by
 *   instanceReadyUp), the update and deletion intervals, `delete_instances_on_shutdown`, state storage.
 *   A changed `url` or `id` makes a new key, and with it a second taskscaler for the same worker group,
 *   which removes the instances it has no state for ("no data on pre-existing instance so removing for
 *   safety"): a restart, never a live change.
 *
 * The token is never part of this comparison: the rendered file carries a placeholder, and a rotated token
 * goes through the token timer (scripts/manager/runner-config.sh, refresh_token).
 */
import { createHash } from "node:crypto";

/** What a running manager does with a changed setting. */
export type ReloadClass = "live" | "restart";

/** A setting: its table path (array tables without their index) and key, e.g. `runners.autoscaler.policy.idle_count`. */
const LIVE_SETTINGS: ReadonlySet<string> = new Set([
  "concurrent",
  "check_interval",
  "log_level",
  "log_format",
  "shutdown_timeout",
  "runners.name",
  "runners.limit",
  "runners.request_concurrency",
  "runners.environment",
  "runners.clone_url",
  "runners.tls-ca-file",
  "runners.autoscaler.instance_acquire_timeout",
]);

/** Tables whose every key is read per job or reconfigured on reload. */
const LIVE_TABLES: readonly string[] = ["runners.docker", "runners.cache", "runners.autoscaler.policy"];

/** The class of one setting; anything not known to reload restarts the runner (the safe side). */
export function reloadClassOf(setting: string): ReloadClass {
  if (LIVE_SETTINGS.has(setting)) return "live";
  if (LIVE_TABLES.some((table) => setting === table || setting.startsWith(`${table}.`))) return "live";
  return "restart";
}

/** One `key = value` of a rendered config.toml, with where it is. */
interface Setting {
  /** With array indexes: `runners[0].autoscaler.policy[1].idle_count`. */
  readonly path: string;
  /** Without them, for the class: `runners.autoscaler.policy.idle_count`. */
  readonly setting: string;
  readonly value: string;
}

/**
 * The settings of a config.toml as runner-fleet renders it (templates/config.toml.hbs): one `key = value`
 * per line, `[table]` and `[[array table]]` headers, `#` comments. Not a general TOML reader.
 */
export function renderedSettings(toml: string): Setting[] {
  const settings: Setting[] = [];
  let runner = -1;
  let policy = -1;
  let table = "";
  for (const raw of toml.split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    const header = /^(\[\[?)([A-Za-z0-9_.-]+)\]\]?$/.exec(line);
    if (header) {
      table = header[2];
      if (header[1] === "[[") {
        if (table === "runners") [runner, policy] = [runner + 1, -1];
        else if (table === "runners.autoscaler.policy") policy += 1;
        else throw new Error(`an array table runner-fleet does not render: ${raw}`);
      }
      continue;
    }
    const pair = /^([A-Za-z0-9_-]+)\s*=\s*(.*)$/.exec(line);
    if (!pair) throw new Error(`not a line of a rendered config.toml: ${raw}`);
    const setting = table === "" ? pair[1] : `${table}.${pair[1]}`;
    const path = setting.replace(/^runners\./, `runners[${runner}].`).replace(/\.policy\./, `.policy[${policy}].`);
    settings.push({ path, setting, value: pair[2] });
  }
  return settings;
}

export interface ConfigChange {
  /** Settings that differ (added, removed or changed), by indexed path, with their class. */
  readonly settings: ReadonlyArray<{ readonly path: string; readonly class: ReloadClass }>;
  /** "none" when the files hold the same settings, "live" when every change reloads, else "restart". */
  readonly effect: "none" | ReloadClass;
}

/** What a running manager does when its config.toml goes from `before` to `after`. */
export function configChange(before: string, after: string): ConfigChange {
  const index = (toml: string) => new Map(renderedSettings(toml).map((setting) => [setting.path, setting]));
  const old = index(before);
  const next = index(after);
  const settings: Array<{ path: string; class: ReloadClass }> = [];
  for (const path of new Set([...old.keys(), ...next.keys()])) {
    const a = old.get(path);
    const b = next.get(path);
    if (a?.value === b?.value) continue;
    settings.push({ path, class: reloadClassOf((a ?? b)!.setting) });
  }
  const effect = settings.length === 0 ? "none" : settings.every((setting) => setting.class === "live") ? "live" : "restart";
  return { settings, effect };
}

/** The comment line that carries the restart digest in a rendered config.toml; the manager compares it. */
export const RESTART_DIGEST_PREFIX = "# runner-fleet restart settings: ";

/**
 * A digest of every setting a running gitlab-runner does not reload: two files with the same digest differ
 * only in settings it takes live. The manager's config timer (scripts/manager/live-config.sh) restarts the
 * runner, with the drain, only when it changes.
 */
export function restartDigest(toml: string): string {
  const restart = renderedSettings(toml)
    .filter((setting) => reloadClassOf(setting.setting) === "restart")
    .map((setting) => `${setting.path}=${setting.value}`);
  return createHash("sha256").update(restart.join("\n")).digest("hex").slice(0, 32);
}
