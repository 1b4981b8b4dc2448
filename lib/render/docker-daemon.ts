/**
 * The workers' Docker daemon settings (/etc/docker/daemon.json): rendered here as JSON, written by the payload
 * to a staging path, installed by the worker boot before jobs arrive (scripts/worker/runner-fleet-worker
 * restarts a dockerd that was already running with other settings).
 *
 * - `registry-mirrors`: docker.registry_mirror. dockerd asks the mirror first for Docker Hub images and falls
 *   back to Docker Hub, so the fleet's pulls stop counting against Docker Hub's anonymous limit per NAT IP.
 *   dockerd accepts a mirror only as an http(s) URL without a path, query or credentials (moby
 *   registry/config.go ValidateMirror), which is what the model checks.
 */
import type { RunnerModel, Shard } from "../model/schema";
import type { BootFile } from "./boot-files";

/** Where the payload puts the rendered settings; the worker boot installs them as /etc/docker/daemon.json. */
export const DOCKER_DAEMON_SETTINGS_FILE = "/etc/runner-fleet/docker-daemon.json";

export interface DockerDaemonSettings {
  readonly "registry-mirrors"?: readonly string[];
  readonly mtu?: number;
}

/** The shard's daemon settings; empty when the model asks for none (the image's own daemon.json is left alone). */
export function dockerDaemonSettings(_model: RunnerModel, shard: Shard): DockerDaemonSettings {
  const mirror = shard.docker.registry_mirror;
  return {
    ...(mirror === undefined ? {} : { "registry-mirrors": [mirror] }),
  };
}

/** The staging file of the daemon settings, or none when there is nothing to set. */
export function dockerDaemonBootFiles(model: RunnerModel, shard: Shard): BootFile[] {
  const settings = dockerDaemonSettings(model, shard);
  if (Object.keys(settings).length === 0) return [];
  return [{ path: DOCKER_DAEMON_SETTINGS_FILE, mode: "0644", content: `${JSON.stringify(settings, null, 2)}\n` }];
}
