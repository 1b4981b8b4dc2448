/**
 * Google-only names derived from a model, next to the shared contract in lib/model/names.ts.
 * Like those, they are plain strings known at synth time and renaming one replaces
 * real infrastructure: treat them as a public contract of the Google constructs.
 */
import { fitName, shardPrefix } from "../../lib/model/names";
import type { RunnerModel, Shard } from "../../lib/model/schema";

/** The VPC network created for a cell (when the model names no existing one). */
export function fleetNetworkName(model: RunnerModel): string {
  return fitName(`${model.cell.id}-runners`, 63);
}

/** Network tag on every runner manager VM of a shard; the worker SSH firewall rule admits only this tag. */
export function managerNetworkTag(model: RunnerModel, shard: Shard): string {
  return fitName(`${shardPrefix(model, shard)}-manager`, 63);
}

/** Network tag on every worker VM of a shard; the target of the shard's SSH firewall rule. */
export function workerNetworkTag(model: RunnerModel, shard: Shard): string {
  return fitName(`${shardPrefix(model, shard)}-worker`, 63);
}

/** Health check (port 9252) that autoheals a shard's manager groups. */
export function managerHealthCheckName(model: RunnerModel, shard: Shard): string {
  return fitName(`${shardPrefix(model, shard)}-mgr-health`, 63);
}

/**
 * Custom role holding exactly the fleeting permissions of a shard's managers.
 * Role ids allow letters, digits, '_' and '.', so the dashes of the names become underscores.
 */
export function fleetingRoleId(model: RunnerModel, shard: Shard): string {
  return fitName(`gitlabRunnerFleeting_${shardPrefix(model, shard)}`, 64).replace(/-/g, "_");
}
