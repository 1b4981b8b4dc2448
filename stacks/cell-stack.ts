/**
 * One Terraform stack per cell: its provider, its state backend and its fleet.
 * A cell's state is independent of every other cell's, so a change to one model
 * plans only that cell.
 */
import { TerraformOutput, type TerraformStack } from "cdktf";
import { invokeAspects } from "cdktf/lib/synthesize/synthesizer";
import type { Construct } from "constructs";
import { TOOLKIT_VERSION_OUTPUT, toolkitVersion } from "../lib/files/toolkit-version";
import { stackName } from "../lib/model/names";
import type { RunnerModel } from "../lib/model/schema";
import { renderCellFiles, type RenderedShardFiles } from "../lib/render/rendered-files";
import type * as AwsCellModule from "./aws-cell";
import { configureBackend } from "./backend";
import { addCellFleet } from "./cell-fleet";
import type * as GoogleCellModule from "./google-cell";
import { escapeLiteralTextIn } from "./literal-text";
import type { PreviousTemplate } from "../lib/roll/manager-slots";
import { holdManagerSlots, keepPreviousTemplates } from "./manager-holds";
import { ResolvedOnceStack } from "./resolve-once";

export interface CellStackProps {
  readonly model: RunnerModel;
  /** Directory relative local state paths are resolved against. @default - the workspace (lib/files/workspace.ts) */
  readonly workDir?: string;
  /** Manager slots (`shard/slot`) kept at the revision they run (provision's roll). @default none */
  readonly heldManagerSlots?: ReadonlySet<string>;
  /** Google manager slots whose previous template is kept beside the current one (provision's roll). @default none */
  readonly previousTemplates?: ReadonlyMap<string, PreviousTemplate>;
  /** The files the cell's VMs boot with, as the synth checked and writes them. @default - rendered here */
  readonly rendered?: readonly RenderedShardFiles[];
}

export { TOOLKIT_VERSION_OUTPUT } from "../lib/files/toolkit-version";

/**
 * An output, not a label or tag: a label on every resource would update every resource at each
 * release, while an output changes nothing in the cloud. Terraform writes outputs to the state at
 * apply, so the state says which version applied the cell last.
 */
export function recordToolkitVersion(stack: TerraformStack): void {
  new TerraformOutput(stack, TOOLKIT_VERSION_OUTPUT, {
    value: toolkitVersion(),
    description: "The runner-fleet version that synthesized this stack (recorded in the state at apply).",
  }).overrideLogicalId(TOOLKIT_VERSION_OUTPUT);
}

export class CellStack extends ResolvedOnceStack {
  readonly model: RunnerModel;

  constructor(scope: Construct, props: CellStackProps) {
    super(scope, stackName(props.model));
    this.model = props.model;
    // Terraform reads every JSON string as a template: scripts and model values must stay literal.
    escapeLiteralTextIn(this);
    const { model } = props;
    configureBackend(this, model, { workDir: props.workDir });
    const rendered = props.rendered ?? renderCellFiles(model);

    // Each cloud's part loads with the first cell of that cloud: its provider's classes are megabytes of
    // code, which a dry run of one cell (and every test of one cloud) would otherwise load for both.
    if (model.cloud.provider === "google") {
      (require("./google-cell") as typeof GoogleCellModule).addGoogleProvider(this, { ...model, cloud: model.cloud });
    } else {
      (require("./aws-cell") as typeof AwsCellModule).addAwsProvider(this, { ...model, cloud: model.cloud });
    }
    // The same call a user's own CDKTF app makes (the package's entry point): one fleet either way.
    addCellFleet(this, "fleet", model, rendered);
    holdManagerSlots(this, props.heldManagerSlots ?? new Set());
    keepPreviousTemplates(this, props.previousTemplates ?? new Map());
    recordToolkitVersion(this);
  }

  /**
   * cdktf's prepareStack resolves every element of the stack once in a "preparing" run, which
   * synthesis then repeats in full: the preparing run only exists so that a token referring to a
   * resource of another stack can add the output and remote state that carry it across
   * (cdktf/lib/tfExpression.js, Reference.resolve). A cell's stack refers to no other stack (each
   * cell's state stands alone), so that run would change nothing and cost a quarter of synthesis.
   * test/stacks/cell-stack.test.ts checks the output is the same with cdktf's own prepareStack.
   */
  override prepareStack(): void {
    this.ensureBackendExists();
  }

  /**
   * The resources of the last toTerraform (as cdktf writes them to cdk.tf.json) with only their construct
   * paths: what the files beside the stack are made of (stacks/cell-synthesis.ts). Not the whole JSON,
   * which a thread would otherwise hold for each of its stacks until it has written them all.
   */
  resourcePaths: ResourcePaths | undefined;

  /** What resolveAhead resolved, for the next toTerraform: cdktf's synth. */
  private resolvedAhead: unknown;

  /**
   * Resolves the stack now, as cdktf's synth will: its aspects first (the literal-text escape, this
   * stack's only aspect, which marks what it has wrapped and so runs once however often it is invoked),
   * then toTerraform. The next toTerraform (the synth's) returns this JSON, and forgets it. Synthesis
   * threads (stacks/cell-synthesis.ts) resolve in the step that builds the stacks, before the step in
   * which every thread writes: resolving is most of a cell's synthesis, and a thread whose cells build
   * quickly but resolve slowly (or the other way round) no longer waits for another twice.
   */
  resolveAhead(): void {
    invokeAspects(this);
    this.resolvedAhead = this.toTerraform();
  }

  /** cdktf's toTerraform without its second resolve of the whole, already resolved, stack (stacks/resolve-once.ts). */
  override toTerraform(): unknown {
    if (this.resolvedAhead !== undefined) {
      const ahead = this.resolvedAhead;
      this.resolvedAhead = undefined;
      return ahead;
    }
    const json = super.toTerraform();
    this.resourcePaths = resourcePathsOf(json as ResourcePaths);
    return json;
  }
}

/** A stack's resources by type and name, each with the construct path cdktf records on it. */
export interface ResourcePaths {
  readonly resource?: Record<string, Record<string, { readonly "//"?: { readonly metadata?: { readonly path?: string } } }>>;
}

function resourcePathsOf(json: ResourcePaths): ResourcePaths {
  const resource: Record<string, Record<string, { "//": { metadata: { path?: string } } }>> = {};
  for (const [type, byName] of Object.entries(json.resource ?? {})) {
    resource[type] = {};
    for (const [name, body] of Object.entries(byName)) resource[type][name] = { "//": { metadata: { path: body["//"]?.metadata?.path } } };
  }
  return json.resource === undefined ? {} : { resource };
}
