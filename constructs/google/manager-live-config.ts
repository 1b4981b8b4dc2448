/**
 * Each manager slot's config.toml, where the manager reads it at run time (lib/render/live-config.ts): a
 * Secret Manager secret per slot, its one version holding the rendered file (token and runner ID as
 * placeholders), readable by the shard's manager service account alone. A change to it replaces no manager:
 * the manager's config timer picks it up (scripts/manager/live-config.sh). A new version replaces the old
 * one (deletion_policy DELETE, the provider's default), so the secret keeps one version.
 */
import { SecretManagerSecret } from "@cdktf/provider-google/lib/secret-manager-secret";
import { SecretManagerSecretIamMember } from "@cdktf/provider-google/lib/secret-manager-secret-iam-member";
import { SecretManagerSecretVersion } from "@cdktf/provider-google/lib/secret-manager-secret-version";
import { Construct } from "constructs";
import { checkNonEmpty, checkNotBlank } from "./checks";

export interface ManagerLiveConfigProps {
  /** Project of the secrets. @default - the provider's project */
  readonly project?: string;
  /** Per slot, in slot order: the secret's id and the content the manager reads. */
  readonly slots: ReadonlyArray<{ readonly secretId: string; readonly content: string }>;
  /** `serviceAccount:<email>` of the shard's managers. */
  readonly reader: string;
  /** Labels of the secrets. @default {} */
  readonly labels?: Readonly<Record<string, string>>;
}

export class ManagerLiveConfig extends Construct {
  /** The versions holding each slot's config.toml, in slot order. */
  public readonly versions: SecretManagerSecretVersion[] = [];

  constructor(scope: Construct, id: string, props: ManagerLiveConfigProps) {
    super(scope, id);
    checkNonEmpty(this, "slots", props.slots, "manager slot");
    props.slots.forEach((slot, index) => {
      checkNotBlank(this, `slots[${index}].content`, slot.content, "the slot's rendered config.toml");
      const secret = new SecretManagerSecret(this, `Secret${index}`, {
        project: props.project,
        secretId: slot.secretId,
        replication: { auto: {} },
        labels: { ...props.labels },
      });
      new SecretManagerSecretIamMember(this, `Access${index}`, {
        project: props.project,
        secretId: secret.secretId,
        role: "roles/secretmanager.secretAccessor",
        member: props.reader,
      });
      // The new version first: a manager that reads "latest" between the two finds one.
      this.versions.push(
        new SecretManagerSecretVersion(this, `Config${index}`, { secret: secret.id, secretData: slot.content, lifecycle: { createBeforeDestroy: true } }),
      );
    });
  }
}
