/**
 * A model's whole fleet as one construct call, for a CDKTF app of the user's own (the package's
 * entry point exports it): the cloud's cell fleet with the props the model maps to, every VM's boot
 * files rendered from the model, and every literal string kept literal. The stack around it, its
 * provider and its backend are the caller's, as in CellStack.
 */
import type { Construct } from "constructs";
import type { AwsCellFleet } from "../constructs/aws/aws-cell-fleet";
import type { GoogleCellFleet } from "../constructs/google/google-cell-fleet";
import type { RunnerModel } from "../lib/model/schema";
import { renderCellFiles, type RenderedShardFiles } from "../lib/render/rendered-files";
import type * as AwsCellModule from "./aws-cell";
import type * as GoogleCellModule from "./google-cell";
import { escapeLiteralTextIn } from "./literal-text";

export function addCellFleet(scope: Construct, id: string, model: RunnerModel, rendered: readonly RenderedShardFiles[] = renderCellFiles(model)): GoogleCellFleet | AwsCellFleet {
  // Each cloud's part loads with the first cell of that cloud (./google-cell.ts, ./aws-cell.ts).
  const fleet =
    model.cloud.provider === "google"
      ? (require("./google-cell") as typeof GoogleCellModule).addGoogleFleet(scope, id, { ...model, cloud: model.cloud }, rendered)
      : (require("./aws-cell") as typeof AwsCellModule).addAwsFleet(scope, id, { ...model, cloud: model.cloud }, rendered);
  // Terraform reads every JSON string as a template: the scripts and model values must reach it as written.
  escapeLiteralTextIn(fleet);
  return fleet;
}
