/**
 * Settings the model accepts but the stack does not use, each a warning that says what is
 * used instead, so a reader of the model does not believe in capacity or zones it lacks:
 * - Google Cloud: a zone no manager slot reaches (slot i runs in zones[i mod zones], names.ts
 *   zoneOfSlot; each slot's worker group is zonal too), so the zone holds nothing.
 * - AWS with an existing VPC: the given private subnets place managers and workers, not
 *   availability_zones; a subnet count that differs from the zone count means the zones listed
 *   are not the zones used.
 */
import type { CrossCheckFinding } from "./finding";
import type { RunnerModel } from "./schema";

export function unusedSettings(model: RunnerModel): CrossCheckFinding[] {
  return [...unreachedGoogleZones(model), ...zonesBesideExistingSubnets(model)];
}

function unreachedGoogleZones(model: RunnerModel): CrossCheckFinding[] {
  const { cloud } = model;
  if (cloud.provider !== "google") return [];
  const slots = Math.max(...model.shards.map((shard) => shard.managers.count));
  return cloud.zones.slice(slots).map((zone, offset): CrossCheckFinding => ({
    severity: "warning",
    path: ["cloud", "zones", slots + offset],
    expected: `a zone a manager slot runs in: slot i runs in zones[i mod ${cloud.zones.length}], and the largest managers.count is ${slots}, so this zone holds no manager and no worker (raise managers.count or drop the zone)`,
    received: JSON.stringify(zone),
  }));
}

function zonesBesideExistingSubnets(model: RunnerModel): CrossCheckFinding[] {
  const { cloud, network } = model;
  if (cloud.provider !== "aws" || !network.existing) return [];
  const { subnets } = network.existing;
  if (subnets.length === cloud.availability_zones.length) return [];
  return [
    {
      severity: "warning",
      path: ["network", "existing", "subnets"],
      expected: `one private subnet per availability zone: with an existing VPC the subnets place managers and workers, not availability_zones (${cloud.availability_zones.length} zone(s) listed, ${subnets.length} subnet(s) given, so the zones used are the subnets' own)`,
      received: `${subnets.length} subnet(s)`,
    },
  ];
}
