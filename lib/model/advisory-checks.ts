/**
 * Findings that do not stop a model but point at a likely mistake: a region the
 * clouds do not list (a typo fails only at apply time), and shards that GitLab
 * cannot tell apart because they carry the same tags.
 */
import { closest, distance } from "fastest-levenshtein";
import { AWS_REGIONS, CLOUD_REGIONS_CHECKED_ON, GOOGLE_CLOUD_REGIONS } from "./cloud-regions";
import type { CrossCheckFinding } from "./finding";
import type { RunnerModel } from "./schema";
import { checkZonesExist } from "./zone-checks";
import { unusedSettings } from "./unused-settings";

export function advisoryChecks(model: RunnerModel): CrossCheckFinding[] {
  return [...checkRegion(model), ...checkZonesExist(model), ...checkShardTags(model), ...unusedSettings(model)];
}

function checkRegion(model: RunnerModel): CrossCheckFinding[] {
  const { provider, region } = model.cloud;
  const known = provider === "google" ? GOOGLE_CLOUD_REGIONS : AWS_REGIONS;
  if (known.includes(region)) return [];
  const nearest = closest(region, [...known]);
  const plausible = distance(region, nearest) <= Math.max(2, Math.floor(nearest.length / 4));
  return [
    {
      severity: "warning",
      path: ["cloud", "region"],
      expected: `a ${provider === "google" ? "Google Cloud" : "AWS"} region (not in the list checked on ${CLOUD_REGIONS_CHECKED_ON}${plausible ? `; did you mean "${nearest}"?` : ""})`,
      received: JSON.stringify(region),
    },
  ];
}

function checkShardTags(model: RunnerModel): CrossCheckFinding[] {
  const firstWithTags = new Map<string, number>();
  const findings: CrossCheckFinding[] = [];
  model.shards.forEach((shard, index) => {
    const key = [...shard.tags].sort().join("\n");
    const earlier = firstWithTags.get(key);
    if (earlier === undefined) {
      firstWithTags.set(key, index);
      return;
    }
    findings.push({
      severity: "warning",
      path: ["shards", index, "tags"],
      expected: `tags that tell this shard from shards[${earlier}] (${model.shards[earlier].name}); with the same tags, GitLab sends a job to either`,
      received: JSON.stringify(shard.tags),
    });
  });
  return findings;
}
