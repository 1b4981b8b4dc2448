/**
 * An AWS cell's part of its stack: the provider and the fleet. Loaded by CellStack only for an AWS
 * model (stacks/cell-stack.ts): the provider's classes are megabytes of code that a run synthesizing
 * only Google Cloud cells never needs.
 */
import { AwsProvider } from "@cdktf/provider-aws/lib/provider";
import type { TerraformStack } from "cdktf";
import { AwsCellFleet } from "../constructs/aws/aws-cell-fleet";
import { shardLabels } from "../lib/model/names";
import type { RenderedShardFiles } from "../lib/render/rendered-files";
import { awsFleetProps, type AwsRunnerModel } from "./aws-fleet-props";

export function addAwsCell(stack: TerraformStack, model: AwsRunnerModel, rendered: readonly RenderedShardFiles[]): void {
  new AwsProvider(stack, "aws", {
    region: model.cloud.region,
    // Refuse to apply with credentials of another account than the model names.
    allowedAccountIds: model.cloud.account_id ? [model.cloud.account_id] : undefined,
    defaultTags: [{ tags: shardLabels(model) }],
  });
  new AwsCellFleet(stack, "fleet", awsFleetProps(model, rendered));
}
