/**
 * The workers' Docker daemon settings (/etc/docker/daemon.json): rendered here as JSON, written by the payload
 * to a staging path, installed by the worker boot before jobs arrive (scripts/worker/runner-fleet-worker
 * restarts a dockerd that was already running with other settings).
 *
 * - `registry-mirrors`: docker.registry_mirror. dockerd asks the mirror first for Docker Hub images and falls
 *   back to Docker Hub, so the fleet's pulls stop counting against Docker Hub's anonymous limit per NAT IP.
 *   dockerd accepts a mirror only as an http(s) URL without a path, query or credentials (moby
 *   registry/config.go ValidateMirror), which is what the model checks.
 * - `mtu`: Google Cloud. A VPC's MTU is 1460 unless set otherwise (the stack's network keeps that default,
 *   "VPC networks: Maximum transmission unit"), and Docker's bridge assumes 1500: a job container's large
 *   packets are dropped past the bridge, so TLS handshakes and big downloads hang without an error
 *   (gitlab-runner MR 6737 records this for GitLab.com's own runners). The bridge then takes the VPC's MTU.
 *   AWS VPCs carry 1500 and more (9001 inside the VPC), so Docker's default fits there.
 */
import type { RunnerModel, Shard } from "../model/schema";
import type { BootFile } from "./boot-files";

/** The MTU of Google Cloud's VPCs unless a network sets another; 1460 also fits a network set to 1500. */
export const GOOGLE_VPC_MTU = 1460;

/** The MTU Docker's networks must keep to on the shard's cloud, or undefined where Docker's 1500 fits. */
export function dockerMtu(model: RunnerModel): number | undefined {
  return model.cloud.provider === "google" ? GOOGLE_VPC_MTU : undefined;
}

/** Where the payload puts the rendered settings; the worker boot installs them as /etc/docker/daemon.json. */
export const DOCKER_DAEMON_SETTINGS_FILE = "/etc/runner-fleet/docker-daemon.json";

export interface DockerDaemonSettings {
  readonly "registry-mirrors"?: readonly string[];
  readonly mtu?: number;
}

/** The shard's daemon settings; empty when the model asks for none (the image's own daemon.json is left alone). */
export function dockerDaemonSettings(model: RunnerModel, shard: Shard): DockerDaemonSettings {
  const mirror = shard.docker.registry_mirror;
  const mtu = dockerMtu(model);
  return {
    ...(mirror === undefined ? {} : { "registry-mirrors": [mirror] }),
    ...(mtu === undefined ? {} : { mtu }),
  };
}

/** The staging file of the daemon settings, or none when there is nothing to set. */
export function dockerDaemonBootFiles(model: RunnerModel, shard: Shard): BootFile[] {
  const settings = dockerDaemonSettings(model, shard);
  if (Object.keys(settings).length === 0) return [];
  return [{ path: DOCKER_DAEMON_SETTINGS_FILE, mode: "0644", content: `${JSON.stringify(settings, null, 2)}\n` }];
}
