/** A stack with an AWS provider for construct tests, and readers of the synthesized JSON. */
import { gunzipSync } from "node:zlib";
import { Testing, TerraformStack } from "cdktf";
import { AwsProvider } from "@cdktf/provider-aws/lib/provider";
import type { Construct } from "constructs";
import { AwsCellFleet } from "../../../constructs/aws/aws-cell-fleet";
import type { RunnerModel } from "../../../lib/model/schema";
import { ResolvedOnceStack } from "../../../stacks/resolve-once";
import { renderCellFiles } from "../../../lib/render/rendered-files";
import { awsFleetProps } from "../../../stacks/aws-fleet-props";

export const TEST_REGION = "eu-west-1";

export function awsTestStack(): TerraformStack {
  const stack = new ResolvedOnceStack(Testing.app(), "test");
  new AwsProvider(stack, "aws", { region: TEST_REGION });
  return stack;
}

export type Json = Record<string, any>;

export function synthJson(stack: TerraformStack): { text: string; json: Json } {
  const text = Testing.synth(stack);
  return { text, json: JSON.parse(text) };
}

/** Every resource of one Terraform type, by logical id. */
export function resourcesOf(json: Json, type: string): Record<string, Json> {
  return json.resource?.[type] ?? {};
}

export function dataSourcesOf(json: Json, type: string): Record<string, Json> {
  return json.data?.[type] ?? {};
}

/** Unresolved cdktf tokens that leaked into the output ("${TfToken[TOKEN.1]}", "${Token[...]}"). */
export const TOKEN_SHAPED = /\$\{(Tf)?Token\[|TOKEN\.\d+|#\{TfToken/;

/** Strings every synthesized stack must not contain: leaked tokens and runner tokens. */
export function expectNoTokenShapedStrings(text: string): void {
  expect(text).not.toMatch(TOKEN_SHAPED);
  expect(text).not.toMatch(/glrt-[A-Za-z0-9_-]{20,}/);
}

/** Every `actions` entry of every statement of every policy document data source. */
export function policyActions(json: Json): string[] {
  return Object.values(dataSourcesOf(json, "aws_iam_policy_document")).flatMap((doc) =>
    (doc.statement ?? []).flatMap((statement: Json) => statement.actions ?? []),
  );
}

/** The statement with this sid, from the only policy document of the stack. */
export function statementWithSid(json: Json, sid: string): Json | undefined {
  return Object.values(dataSourcesOf(json, "aws_iam_policy_document"))
    .flatMap((doc) => doc.statement ?? [])
    .find((statement: Json) => statement.sid === sid);
}

/** The Terraform reference `${<type>.<id>.<attribute>}` of a resource found by a predicate. */
export function referenceTo(json: Json, type: string, attribute: string, match: (resource: Json) => boolean): string {
  const entry = Object.entries(resourcesOf(json, type)).find(([, resource]) => match(resource));
  if (!entry) throw new Error(`no ${type} matches`);
  return `\${${type}.${entry[0]}.${attribute}}`;
}

/** Warning annotations attached anywhere under a construct. */
export function warningsUnder(scope: import("constructs").IConstruct): string[] {
  return scope.node
    .findAll()
    .flatMap((construct) => construct.node.metadata)
    .filter((entry) => entry.type === "@cdktf/warn")
    .map((entry) => String(entry.data));
}

/** Decodes launch template user data, uncompressing it (as cloud-init does) when it is gzip content. */
export function decodeUserData(base64: string): string {
  const bytes = Buffer.from(base64, "base64");
  const isGzip = bytes[0] === 0x1f && bytes[1] === 0x8b;
  return (isGzip ? gunzipSync(bytes) : bytes).toString("utf8");
}

/** The cell fleet of an AWS model, built as the cell stack builds it (stacks/aws-fleet-props.ts). */
export function awsFleetOf(scope: Construct, model: RunnerModel, id = "fleet"): AwsCellFleet {
  if (model.cloud.provider !== "aws") throw new Error(`test model ${model.cell.id} is not an AWS model`);
  return new AwsCellFleet(scope, id, awsFleetProps({ ...model, cloud: model.cloud }, renderCellFiles(model)));
}
