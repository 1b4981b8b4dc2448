/**
 * One Terraform stack per cell: its provider, its state backend and its fleet.
 * A cell's state is independent of every other cell's, so a change to one model
 * plans only that cell.
 */
import { TerraformStack } from "cdktf";
import type { Construct } from "constructs";
import { stackName } from "../lib/model/names";
import type { RunnerModel } from "../lib/model/schema";
import { renderCellFiles, type RenderedShardFiles } from "../lib/render/rendered-files";
import type * as AwsCellModule from "./aws-cell";
import { configureBackend } from "./backend";
import type * as GoogleCellModule from "./google-cell";
import { escapeLiteralTextIn } from "./literal-text";
import { holdManagerSlots } from "./manager-holds";

export interface CellStackProps {
  readonly model: RunnerModel;
  /** Directory relative local state paths are resolved against. @default - the current directory */
  readonly workDir?: string;
  /** Manager slots (`shard/slot`) kept at the revision they run (provision's roll). @default none */
  readonly heldManagerSlots?: ReadonlySet<string>;
  /** The files the cell's VMs boot with, as the synth checked and writes them. @default - rendered here */
  readonly rendered?: readonly RenderedShardFiles[];
}

export class CellStack extends TerraformStack {
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
      (require("./google-cell") as typeof GoogleCellModule).addGoogleCell(this, { ...model, cloud: model.cloud }, rendered);
    } else {
      (require("./aws-cell") as typeof AwsCellModule).addAwsCell(this, { ...model, cloud: model.cloud }, rendered);
    }
    holdManagerSlots(this, props.heldManagerSlots ?? new Set());
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
}
