/**
 * How a gitlab-runner manager holds capacity for the jobs it asks for, shared by the cost estimate
 * (lib/cost/estimate.ts) and the simulator (lib/simulate/simulate-fleet.ts), so the two agree.
 */

/**
 * Job requests a manager keeps in flight, each holding a reservation: commands/multi.go `processRunner`
 * reserves a slot before it asks for a job (v19.3.0). One a manager is the simulator's assumption where
 * the source leaves it to request_concurrency and timing; reports print it.
 */
export const REQUESTS_IN_FLIGHT = 1;

/**
 * gitlab-runner common/config.go `AutoscalerPolicyConfig.PreemptiveModeEnabled`: preemptive_mode when
 * set, else on when idle_count > 0. Preemptive, a job is asked for only with an idle slot reserved.
 */
export function preemptiveModeEnabled(preemptiveMode: boolean | undefined, idleCount: number): boolean {
  return preemptiveMode ?? idleCount > 0;
}
