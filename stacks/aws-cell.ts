/**
 * An AWS cell's provider and fleet. Loaded (by CellStack and addCellFleet) only for an AWS model:
 * the provider's classes are megabytes of code that a run synthesizing only Google Cloud cells never
 * needs.
 */
import { AwsProvider } from "@cdktf/provider-aws/lib/provider";
import type { TerraformStack } from "cdktf";
import type { Construct } from "constructs";
import { AwsCellFleet } from "../constructs/aws/aws-cell-fleet";
import { shardLabels } from "../lib/model/names";
import type { RenderedShardFiles } from "../lib/render/rendered-files";
import { awsFleetProps, type AwsRunnerModel } from "./aws-fleet-props";

export function addAwsProvider(stack: TerraformStack, model: AwsRunnerModel): void {
  new AwsProvider(stack, "aws", {
    region: model.cloud.region,
    // Refuse to apply with credentials of another account than the model names.
    allowedAccountIds: model.cloud.account_id ? [model.cloud.account_id] : undefined,
    defaultTags: [{ tags: shardLabels(model) }],
  });
}

export function addAwsFleet(scope: Construct, id: string, model: AwsRunnerModel, rendered: readonly RenderedShardFiles[]): AwsCellFleet {
  return new AwsCellFleet(scope, id, awsFleetProps(model, rendered));
}
