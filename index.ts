/**
 * runner-fleet as a library, for a CDKTF app of your own (the CLI is `runner-fleet`, package.json "bin").
 *
 *   const { model } = loadModelFile("models/cell-1.yaml");
 *   addCellFleet(myStack, "runners", model);          // the model's whole fleet, in your stack
 *
 * or the constructs themselves, with props of your own. examples/own-stack/ composes a fleet into a
 * stack in a few lines. Construct ids are a contract: renaming one replaces real infrastructure.
 * What is exported here follows semantic versioning (CHANGELOG.md); deeper paths are not exported.
 */

// The model: load and check a YAML runner model, its types, its JSON Schema.
export { loadModelFile, parseModel, type LoadedModel, type LoadOptions } from "./lib/model/load";
export { runnerModelSchema, type RunnerModel, type RunnerModelInput, type Shard, type CloudConfig, type GoogleCloudConfig, type AwsCloudConfig } from "./lib/model/schema";
export { runnerModelJsonSchema, runnerModelJsonSchemaText } from "./lib/model/json-schema";
export { ModelValidationError, formatIssue, type ModelIssue } from "./lib/model/issues";
export { shardLabels, stackName } from "./lib/model/names";
export { renderCellFiles, type RenderedShardFiles } from "./lib/render/rendered-files";

// A model's fleet in your stack, and the stack the CLI synthesizes per cell.
export { addCellFleet } from "./stacks/cell-fleet";
export { CellStack, TOOLKIT_VERSION_OUTPUT, type CellStackProps } from "./stacks/cell-stack";
export { googleFleetProps, type GoogleRunnerModel } from "./stacks/google-fleet-props";
export { awsFleetProps, type AwsRunnerModel } from "./stacks/aws-fleet-props";

// The constructs: a cell's fleet per cloud, and its monitoring.
export { GoogleCellFleet, type GoogleCellFleetProps, type GoogleShardProps, type GoogleShardFleet } from "./constructs/google/google-cell-fleet";
export { AwsCellFleet, type AwsCellFleetProps, type AwsShardProps, type AwsShardFleet } from "./constructs/aws/aws-cell-fleet";
export { FleetMonitoring as GoogleFleetMonitoring, type FleetMonitoringProps as GoogleFleetMonitoringProps } from "./constructs/google/fleet-monitoring";
export { FleetMonitoring as AwsFleetMonitoring, type FleetMonitoringProps as AwsFleetMonitoringProps } from "./constructs/aws/fleet-monitoring";

export { toolkitVersion } from "./lib/files/toolkit-version";
