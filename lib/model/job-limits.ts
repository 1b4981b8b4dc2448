/**
 * Per-job limits of a worker that runs several jobs at once (capacity_per_instance > 1): without them one
 * job's memory spike can have the kernel's OOM killer take the other job, dockerd or sshd. The limits are
 * gitlab-runner's [runners.docker] cpus, memory, memory_reservation and their service_* twins (GitLab Runner
 * "Advanced configuration: The [runners.docker] section"; Docker "Resource constraints").
 *
 * From the machine's shape (./machine-shapes.ts), unless the model sets docker.job_limits:
 * - the host keeps max(1 GiB, 10%) of the memory for dockerd, sshd and the kernel;
 * - each job slot gets an equal share of the rest: 3/4 for the job container, 1/4 for each service
 *   container (a job with one service stays in its share; more services can exceed it);
 * - memory_reservation is half the limit: under memory pressure the kernel reclaims from containers above
 *   their reservation first;
 * - cpus is the vCPUs divided by the slots, for the job and for each service (CPU is shared, not lost).
 * With one job per worker there is nothing to protect the job from, and no limit is set unless asked.
 */
import { machineShape } from "./machine-shapes";
import type { RunnerModel, Shard } from "./schema";

export interface JobLimits {
  readonly cpus: string;
  readonly memory: string;
  readonly memoryReservation: string;
  readonly serviceCpus: string;
  readonly serviceMemory: string;
  readonly serviceMemoryReservation: string;
}

const cpusText = (cpus: number) => String(Math.floor(cpus * 100) / 100);
const mib = (value: number) => `${Math.floor(value)}m`;

/** The shard's per-job limits, or null when none apply; undefined when they are needed and cannot be derived. */
export function jobLimits(model: RunnerModel, shard: Shard): JobLimits | null | undefined {
  const explicit = shard.docker.job_limits;
  if (explicit !== undefined) {
    const serviceMemory = explicit.service_memory_mb ?? explicit.memory_mb / 3;
    return {
      cpus: cpusText(explicit.cpus),
      memory: mib(explicit.memory_mb),
      memoryReservation: mib(explicit.memory_mb / 2),
      serviceCpus: cpusText(explicit.cpus),
      serviceMemory: mib(serviceMemory),
      serviceMemoryReservation: mib(serviceMemory / 2),
    };
  }
  const slots = shard.workers.capacity_per_instance;
  if (slots === 1) return null;
  const shape = machineShape(model.cloud.provider, shard.workers.machine_type);
  if (shape === undefined) return undefined;
  const hostReserve = Math.max(1024, shape.memoryMiB * 0.1);
  const share = (shape.memoryMiB - hostReserve) / slots;
  const jobMemory = Math.floor(share * 0.75);
  const serviceMemory = Math.floor(share - jobMemory);
  const cpus = shape.vcpus / slots;
  return {
    cpus: cpusText(cpus),
    memory: mib(jobMemory),
    memoryReservation: mib(jobMemory / 2),
    serviceCpus: cpusText(cpus),
    serviceMemory: mib(serviceMemory),
    serviceMemoryReservation: mib(serviceMemory / 2),
  };
}
