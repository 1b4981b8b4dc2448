/**
 * Each manager slot's config.toml, where the manager reads it at run time (lib/render/live-config.ts): an
 * SSM String parameter per slot holding the rendered file (token and runner ID as placeholders, so not a
 * SecureString: the plan shows what changes), readable by the shard's manager role alone. A change to it
 * replaces no manager: the manager's config timer picks it up (scripts/manager/live-config.sh).
 * A Standard parameter holds 4 KB; a longer file takes the Advanced tier (8 KB; AWS Systems Manager docs,
 * "Managing parameter tiers").
 */
import { IamRolePolicy } from "@cdktf/provider-aws/lib/iam-role-policy";
import { SsmParameter } from "@cdktf/provider-aws/lib/ssm-parameter";
import { Construct } from "constructs";
import { ssmParameterArn, type RegionalArnParts } from "./arns";

/** The largest value of a Standard parameter, in bytes. */
export const STANDARD_PARAMETER_BYTES = 4096;

export interface ManagerLiveConfigProps extends RegionalArnParts {
  /** Per slot, in slot order: the parameter's name and the content the manager reads. */
  readonly slots: ReadonlyArray<{ readonly parameterName: string; readonly content: string }>;
  /** The shard's manager role (its id, as IamRolePolicy takes it). */
  readonly role: string;
  /** Tags of the parameters. @default {} */
  readonly tags?: Readonly<Record<string, string>>;
}

export class ManagerLiveConfig extends Construct {
  public readonly parameters: SsmParameter[] = [];
  /** Lets the managers read their parameters; a manager's first boot needs it in place. */
  public readonly policy: IamRolePolicy;

  constructor(scope: Construct, id: string, props: ManagerLiveConfigProps) {
    super(scope, id);
    props.slots.forEach((slot, index) => {
      this.parameters.push(
        new SsmParameter(this, `Config${index}`, {
          name: slot.parameterName,
          type: "String",
          tier: Buffer.byteLength(slot.content) > STANDARD_PARAMETER_BYTES ? "Advanced" : "Standard",
          insecureValue: slot.content,
          description: `config.toml of runner manager slot ${index} (runner-fleet); the manager reads it every minute.`,
          tags: { ...props.tags },
        }),
      );
    });
    this.policy = new IamRolePolicy(this, "policy", {
      name: "runner-fleet-config",
      role: props.role,
      policy: JSON.stringify({
        Version: "2012-10-17",
        Statement: [{ Sid: "ReadManagerConfig", Effect: "Allow", Action: ["ssm:GetParameter"], Resource: props.slots.map((slot) => ssmParameterArn(props, slot.parameterName)) }],
      }),
    });
  }
}
