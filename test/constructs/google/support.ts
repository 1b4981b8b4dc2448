/** Test helpers for the Google constructs: a stack with a Google provider, and readers of synthesized JSON. */
import { GoogleProvider } from "@cdktf/provider-google/lib/provider";
import { Testing, TerraformStack } from "cdktf";
import type { Construct, IConstruct } from "constructs";
import { GoogleCellFleet } from "../../../constructs/google/google-cell-fleet";
import type { RunnerModel } from "../../../lib/model/schema";
import { ResolvedOnceStack } from "../../../stacks/resolve-once";
import { renderCellFiles } from "../../../lib/render/rendered-files";
import { googleFleetProps } from "../../../stacks/google-fleet-props";

export const TEST_PROJECT = "acme-test-project";
export const TEST_REGION = "europe-west4";

/** A fresh stack with the Google provider, written as the real cell stack writes its JSON (ResolvedOnceStack, stacks/resolve-once.ts). */
export function googleTestStack(): TerraformStack {
  const app = Testing.app();
  const stack = new ResolvedOnceStack(app, "test");
  new GoogleProvider(stack, "google", { project: TEST_PROJECT, region: TEST_REGION });
  return stack;
}

/** The synthesized stack JSON. */
export function synth(stack: TerraformStack): string {
  return Testing.synth(stack);
}

/** Every resource of a Terraform type in synthesized JSON, as plain objects (snake_case keys). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function resourcesOf(synthesized: string, terraformType: string): any[] {
  const parsed = JSON.parse(synthesized) as { resource?: Record<string, Record<string, unknown>> };
  return Object.values(parsed.resource?.[terraformType] ?? {});
}

/** Every Terraform resource type present in synthesized JSON. */
export function resourceTypes(synthesized: string): string[] {
  const parsed = JSON.parse(synthesized) as { resource?: Record<string, unknown> };
  return Object.keys(parsed.resource ?? {});
}

/** Warnings added with Annotations anywhere under `scope`. */
export function warningsOf(scope: IConstruct): string[] {
  return scope.node
    .findAll()
    .flatMap((construct) => construct.node.metadata)
    .filter((entry) => entry.type === "@cdktf/warn")
    .map((entry) => String(entry.data));
}

/** What a GitLab runner authentication token looks like; synthesized JSON must never contain one. */
export const RUNNER_TOKEN_SHAPE = /glrt-[A-Za-z0-9_-]{20,}/;

/** The cell fleet of a Google Cloud model, built as the cell stack builds it (stacks/google-fleet-props.ts). */
export function googleFleetOf(scope: Construct, model: RunnerModel, id = "fleet"): GoogleCellFleet {
  if (model.cloud.provider !== "google") throw new Error(`test model ${model.cell.id} is not a Google Cloud model`);
  return new GoogleCellFleet(scope, id, googleFleetProps({ ...model, cloud: model.cloud }, renderCellFiles(model)));
}
