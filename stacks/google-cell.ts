/**
 * A Google Cloud cell's provider and fleet. Loaded (by CellStack and addCellFleet) only for a Google
 * Cloud model: the provider's classes are megabytes of code that a run synthesizing only AWS cells
 * never needs.
 */
import { GoogleProvider } from "@cdktf/provider-google/lib/provider";
import type { TerraformStack } from "cdktf";
import type { Construct } from "constructs";
import { GoogleCellFleet } from "../constructs/google/google-cell-fleet";
import { shardLabels } from "../lib/model/names";
import type { RenderedShardFiles } from "../lib/render/rendered-files";
import { googleFleetProps, type GoogleRunnerModel } from "./google-fleet-props";

export function addGoogleProvider(stack: TerraformStack, model: GoogleRunnerModel): void {
  const google = new GoogleProvider(stack, "google", { project: model.cloud.project, region: model.cloud.region });
  // Set through an override: cdktf snake-cases the keys of provider-level maps ("gitlab-cell" -> "gitlab_cell").
  google.addOverride("default_labels", shardLabels(model));
}

export function addGoogleFleet(scope: Construct, id: string, model: GoogleRunnerModel, rendered: readonly RenderedShardFiles[]): GoogleCellFleet {
  return new GoogleCellFleet(scope, id, googleFleetProps(model, rendered));
}
