/**
 * A region typo (`region: eu-centrel-1` beside `availability_zones: [eu-central-1a, eu-central-1b]`) is one
 * mistake: reported once, at the region, with the zones' region as the value that passes, instead of one
 * "zone of region eu-centrel-1" error per zone that suggests zones of a region that does not exist.
 * Only when the region is not one the clouds list and every zone outside it names the same listed region.
 */
import { closest, distance } from "fastest-levenshtein";
import { AWS_REGIONS, CLOUD_REGIONS_CHECKED_ON, GOOGLE_CLOUD_REGIONS } from "./cloud-regions";
import type { CrossCheckFinding } from "./finding";
import type { RunnerModel } from "./schema";

export function knownRegions(provider: "google" | "aws"): readonly string[] {
  return provider === "google" ? GOOGLE_CLOUD_REGIONS : AWS_REGIONS;
}

/** The region a zone name belongs to: eu-central-1a is in eu-central-1, europe-west4-a in europe-west4. */
export function regionOfZone(provider: "google" | "aws", zone: string): string | undefined {
  const match = provider === "google" ? /^(.+)-[a-z]$/.exec(zone) : /^(.+[0-9])[a-z]$/.exec(zone);
  return match?.[1];
}

/** The finding for a region the zones contradict, or undefined when the region is not the mistake. */
export function regionTypoFinding(model: RunnerModel): CrossCheckFinding | undefined {
  const { cloud } = model;
  const known = knownRegions(cloud.provider);
  if (known.includes(cloud.region)) return undefined;
  const zones = cloud.provider === "google" ? cloud.zones : cloud.availability_zones;
  const elsewhere = zones.filter((zone) => regionOfZone(cloud.provider, zone) !== cloud.region);
  const regions = new Set(elsewhere.map((zone) => regionOfZone(cloud.provider, zone)));
  if (elsewhere.length === 0 || regions.size !== 1) return undefined;
  const [zonesRegion] = regions;
  if (zonesRegion === undefined || !known.includes(zonesRegion)) return undefined;
  const key = cloud.provider === "google" ? "zones" : "availability_zones";
  return {
    severity: "error",
    path: ["cloud", "region"],
    expected: `the ${cloud.provider === "google" ? "Google Cloud" : "AWS"} region that cloud.${key} are in (${zonesRegion} holds ${elsewhere.join(", ")}; ${cloud.region} is not in the list of regions checked on ${CLOUD_REGIONS_CHECKED_ON})`,
    received: JSON.stringify(cloud.region),
    hint: `did you mean ${JSON.stringify(zonesRegion)}?`,
  };
}

/** The closest listed region when it is close enough to be a typo. */
export function nearRegion(provider: "google" | "aws", region: string): string | undefined {
  const nearest = closest(region, [...knownRegions(provider)]);
  return distance(region, nearest) <= Math.max(2, Math.floor(nearest.length / 4)) ? nearest : undefined;
}
