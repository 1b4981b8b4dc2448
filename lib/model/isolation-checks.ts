/**
 * Docker settings that weaken the isolation between jobs, or between a job and the worker
 * it runs on. Each is allowed (some pipelines need them) but gets a warning that names the risk:
 * - the Docker socket mounted into jobs: a job controls the worker's Docker daemon, can start
 *   privileged containers and read other jobs' containers on the same instance;
 * - privileged with max_use_count other than 1: a privileged job can change the instance (kernel
 *   modules, mounts, the daemon) and the next job on it inherits that
 *   (https://docs.gitlab.com/runner/security/#usage-of-docker-executor);
 * - volumes of host paths: jobs read and write the worker's files, and later jobs see them.
 * Host networking is not a setting of the model (network_mode is not offered).
 */
import type { CrossCheckFinding } from "./finding";
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
