/**
 * Zones the cloud does not have in the region (us-east-1g, us-central1-e): a warning
 * that names the zones the dated list holds, so a typo is caught before apply.
 * Zones of another region are refused by cross-checks.ts; this looks only at the letter.
 */
import { CLOUD_ZONES_CHECKED_ON, knownZones } from "./cloud-zones";
import type { CrossCheckFinding } from "./finding";
import type { RunnerModel } from "./schema";

export function checkZonesExist(model: RunnerModel): CrossCheckFinding[] {
  const { cloud } = model;
  const zones = cloud.provider === "google" ? cloud.zones : cloud.availability_zones;
  const key = cloud.provider === "google" ? "zones" : "availability_zones";
  const known = knownZones(cloud.provider, cloud.region);
  if (known === undefined) return [];
  const ofRegion = cloud.provider === "google" ? new RegExp(`^${cloud.region}-[a-z]$`) : new RegExp(`^${cloud.region}[a-z]$`);
  return zones.flatMap((zone, index): CrossCheckFinding[] =>
    ofRegion.test(zone) && !known.includes(zone)
      ? [
          {
            severity: "warning",
            path: ["cloud", key, index],
            expected: `a zone that exists in ${cloud.region}: ${known.join(", ")} (the list checked on ${CLOUD_ZONES_CHECKED_ON}, lib/model/cloud-zones.ts; a zone missing from it fails only at apply)`,
            received: JSON.stringify(zone),
          },
        ]
      : [],
  );
}
