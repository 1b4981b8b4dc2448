/**
 * Docker settings that weaken the isolation between jobs, or between a job and the worker
 * it runs on. Each is allowed (some pipelines need them) but gets a warning that names the risk:
 * - the Docker socket mounted into jobs: a job controls the worker's Docker daemon, can start
 *   privileged containers and read other jobs' containers on the same instance;
 * - privileged with max_use_count other than 1: a privileged job can change the instance (kernel
 *   modules, mounts, the daemon) and the next job on it inherits that
 *   (https://docs.gitlab.com/runner/security/#usage-of-docker-executor);
 * - volumes of host paths: jobs read and write the worker's files, and later jobs see them;
 * - pull policies that read the worker's image cache where other jobs filled it (lib/model/pull-policy.ts).
 * One is refused unless the model opts in by name: privileged with capacity_per_instance above 1, where
 * jobs of different projects run at once on one privileged Docker host, and each can take over the others'
 * containers, job tokens and artifacts (docker.privileged_shares_worker: true accepts it).
 * Host networking is not a setting of the model (network_mode is not offered).
 */
import type { CrossCheckFinding } from "./finding";
import { CACHE_READING_POLICIES, effectivePullPolicy, sharesImageCache } from "./pull-policy";
import type { RunnerModel } from "./schema";

const DOCKER_SOCKET = /(^|:)\/(var\/)?run\/docker\.sock(:|$)/;

export function checkIsolation(model: RunnerModel): CrossCheckFinding[] {
  return model.shards.flatMap((shard, shardIndex) => {
    const at = ["shards", shardIndex, "docker"];
    const findings: CrossCheckFinding[] = [];
    shard.docker.volumes.forEach((volume, index) => {
      if (DOCKER_SOCKET.test(volume)) {
        findings.push({
          severity: "warning",
          path: [...at, "volumes", index],
          expected: "no Docker socket mounted into jobs (security: a job then controls the worker's Docker daemon, can start privileged containers and reach other jobs' containers; use a Docker-in-Docker service or a rootless builder)",
          received: JSON.stringify(volume),
        });
      } else if (volume.includes(":") && volume.startsWith("/")) {
        findings.push({
          severity: "warning",
          path: [...at, "volumes", index],
          expected: "volumes inside the job's container, such as /cache (security: a host path lets jobs read and write the worker's files, and later jobs on the same instance see what earlier ones left)",
          received: JSON.stringify(volume),
        });
      }
    });
    if (shard.docker.privileged && shard.workers.capacity_per_instance > 1 && !shard.docker.privileged_shares_worker) {
      findings.push({
        severity: "error",
        path: [...at, "privileged"],
        expected: `workers.capacity_per_instance: 1 with privileged jobs, or docker.privileged_shares_worker: true to accept it (security: with ${shard.workers.capacity_per_instance} jobs at once on one privileged Docker host, any of them, of any project, can take over the others' containers, job tokens and artifacts)`,
        received: "true",
      });
    }
    const cacheReading = (shard.docker.pull_policy ?? []).filter((policy) => CACHE_READING_POLICIES.includes(policy));
    if (sharesImageCache(shard) && cacheReading.length > 0) {
      findings.push({
        severity: "warning",
        path: [...at, "pull_policy"],
        expected: `[always] where a worker's image cache serves more than one job (security: with ${cacheReading.join(" and ")}, gitlab-runner uses a cached image after any failed pull, an authentication failure included, so a job can run another project's private image that an earlier job on the worker pulled)`,
        received: JSON.stringify(effectivePullPolicy(shard)),
      });
    }
    if (shard.docker.privileged && shard.workers.max_use_count !== 1) {
      findings.push({
        severity: "warning",
        path: [...at, "privileged"],
        expected: `workers.max_use_count: 1 with privileged jobs (security: a privileged job can change its instance, and with max_use_count ${shard.workers.max_use_count === 0 ? "0 (unlimited)" : shard.workers.max_use_count} the next job runs on what it left)`,
        received: "true",
      });
    }
    return findings;
  });
}
