/**
 * Adopting a runner that existed before runner-fleet (`import --adopt` put its token in the store).
 *
 * Such a shard's store holds a token and the runner id GitLab verified for it; the runner carries
 * no marker yet. Onboard keeps that runner and its token (the old managers still use it during the
 * migration, so the token is not reset), brings its settings in line with the model, and writes the
 * shard's marker into its maintenance note, the way it marks the runners it creates: from then on
 * status, --rotate and --prune treat it like any other. Its id and job history stay as they were.
 *
 * Idempotent: once marked, the next run finds nothing to adopt (plan "none" or "update"). A token
 * GitLab refuses is not adopted here: ./plan.ts resets it as for any shard whose token stopped working.
 */
import type { RunnerDetails } from "../gitlab/client";
import type { ObservedShard } from "./observed";

/** The marker at the end of the shard's desired maintenance note (lib/gitlab/runner-spec.ts runnerMarker). */
const MARKER = /\[runner-fleet cell=[^\]\s]+ shard=[^\]\s]+\]/;

/** Why the runner is adopted, or undefined when it is not a runner to adopt. */
export function importedRunnerAdoption(observed: ObservedShard, runner: RunnerDetails, desiredMaintenanceNote: string): string | undefined {
  if (observed.foundBy !== "stored-id" || observed.secret.kind !== "stored" || observed.secret.runnerId !== runner.id) return undefined;
  if (observed.token.kind === "refused") return undefined;
  const marker = MARKER.exec(desiredMaintenanceNote)?.[0];
  if (!marker || runner.maintenance_note?.includes(marker) || runner.description?.includes(marker)) return undefined;
  // A renamed shard's runner carries its former name's marker: it is this shard's runner already (./plan.ts renames it).
  if (observed.renamedFrom !== undefined) return undefined;
  return `runner #${runner.id} existed before runner-fleet (its token is in the store, it carries no marker): adopted with its token kept, its settings brought in line and the shard's marker added`;
}
