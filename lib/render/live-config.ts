/**
 * config.toml reaches the managers at run time, not in their launch or instance template: a change to it
 * then replaces no manager. Each slot's rendered config.toml (token and ID as placeholders) is stored by
 * the stack in a Secret Manager secret (Google) or an SSM String parameter (AWS)
 * (liveConfigLocation in lib/model/names.ts); the manager reads it at boot, and its config timer reads it
 * again every minute (scripts/manager/live-config.sh). A changed file whose restart digest
 * (config-reload.ts) is the same is written under the running gitlab-runner, which reloads it within 3 s;
 * one whose digest changed is written after a graceful stop (SIGQUIT, running jobs finish), then the runner
 * starts again: the same drain as a replacement, without a new VM.
 */
import { liveConfigLocation } from "../model/names";
import type { RunnerModel, Shard } from "../model/schema";
import { RESTART_DIGEST_PREFIX, restartDigest } from "./config-reload";

/** What the stack stores for a slot: the restart digest line, then the rendered config.toml. */
export function liveConfigContent(configToml: string): string {
  return `${RESTART_DIGEST_PREFIX}${restartDigest(configToml)}\n${configToml}`;
}

/** The config.toml in stored content (without the digest line). */
export function configTomlOfLiveConfig(content: string): string {
  return content.startsWith(RESTART_DIGEST_PREFIX) ? content.slice(content.indexOf("\n") + 1) : content;
}

/** Settings of manager `slot` that name where it reads its config.toml. */
export function liveConfigSettings(model: RunnerModel, shard: Shard, slot: number): Record<string, string> {
  const location = liveConfigLocation(model, shard, slot);
  if (model.cloud.provider === "google") {
    return {
      CONFIG_SOURCE: `Secret Manager secret ${location.googleSecretId} of project ${model.cloud.project}`,
      CONFIG_SECRET_VERSION_URL: `https://secretmanager.googleapis.com/v1/projects/${model.cloud.project}/secrets/${location.googleSecretId}/versions/latest:access`,
      RESTART_DIGEST_PREFIX,
    };
  }
  return { CONFIG_SOURCE: `SSM parameter ${location.awsParameterName}`, CONFIG_PARAMETER_NAME: location.awsParameterName, RESTART_DIGEST_PREFIX };
}

/** How often a manager reads its config.toml again (systemd time span). */
export const CONFIG_REFRESH_INTERVAL = "1min";
