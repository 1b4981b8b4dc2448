/**
 * A Google Cloud cell's part of its stack: the provider and the fleet. Loaded by CellStack only for a
 * Google Cloud model (stacks/cell-stack.ts): the provider's classes are megabytes of code that a run
 * synthesizing only AWS cells never needs.
 */
import { GoogleProvider } from "@cdktf/provider-google/lib/provider";
import type { TerraformStack } from "cdktf";
import { GoogleCellFleet } from "../constructs/google/google-cell-fleet";
import { shardLabels } from "../lib/model/names";
import type { RenderedShardFiles } from "../lib/render/rendered-files";
import { googleFleetProps, type GoogleRunnerModel } from "./google-fleet-props";

export function addGoogleCell(stack: TerraformStack, model: GoogleRunnerModel, rendered: readonly RenderedShardFiles[]): void {
  const google = new GoogleProvider(stack, "google", { project: model.cloud.project, region: model.cloud.region });
  // Set through an override: cdktf snake-cases the keys of provider-level maps ("gitlab-cell" -> "gitlab_cell").
  google.addOverride("default_labels", shardLabels(model));
  new GoogleCellFleet(stack, "fleet", googleFleetProps(model, rendered));
}
