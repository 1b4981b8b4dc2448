/**
 * A shard's distributed runner cache: a private GCS bucket whose objects expire, writable by
 * the shard's managers only.
 */
import { ProjectIamCustomRole } from "@cdktf/provider-google/lib/project-iam-custom-role";
import { ServiceAccountIamMember } from "@cdktf/provider-google/lib/service-account-iam-member";
import { StorageBucket } from "@cdktf/provider-google/lib/storage-bucket";
import { StorageBucketIamMember } from "@cdktf/provider-google/lib/storage-bucket-iam-member";
import { Construct } from "constructs";
import { fitName } from "../../lib/names/fit-name";
import { checkIntegerRange, checkNonEmpty, checkPattern, fail, isToken } from "./checks";

export interface CacheBucketProps {
  /** Globally unique bucket name. */
  readonly name: string;
  /** Project of the bucket (and of the managers' service accounts). */
  readonly project: string;
  /** Bucket location: the fleet's region keeps cache traffic regional. */
  readonly location: string;
  /** Objects are deleted this many days after they were written. @default 14 */
  readonly expiryDays?: number;
  /**
   * Let Terraform delete the bucket while it still holds cache objects. The cache is disposable, and a
   * removed shard's bucket is deleted in the same apply that deletes its managers: without this the
   * apply fails on a bucket that any job has written to, with the managers already gone (the provider's
   * resource_storage_bucket delete: "Error trying to delete bucket <name> containing objects without
   * `force_destroy` set to true"). Turning it on is an in-place update of an existing bucket.
   * The same as the AWS cache bucket (constructs/aws/cache-bucket.ts).
   * @default true
   */
  readonly forceDestroy?: boolean;
  /** Labels of the bucket. @default {} */
  readonly labels?: Readonly<Record<string, string>>;
  /** Service accounts (the shard's managers) that read and write cache objects. */
  readonly objectAdminServiceAccountEmails: readonly string[];
  /**
   * Let each of those accounts sign URLs as itself. gitlab-runner hands jobs signed URLs; with no key
   * file it signs through the IAM signBlob API using the VM's own account, which needs
   * iam.serviceAccounts.signBlob on that account. Granted on the account itself (not the project) through a
   * custom role with that one permission: roles/iam.serviceAccountTokenCreator would also grant
   * getAccessToken, signJwt and getOpenIdToken, which the cache never uses.
   * @default true
   */
  readonly grantUrlSigning?: boolean;
  /**
   * Id of the custom role holding iam.serviceAccounts.signBlob alone (letters, digits, '_' and '.').
   * @default - urlSigningRoleId(name): "gitlabRunnerUrlSigning_" and the bucket's name
   */
  readonly urlSigningRoleId?: string;
}

/** The only permission URL signing needs (IAM Credentials API projects.serviceAccounts.signBlob). */
export const URL_SIGNING_PERMISSIONS: readonly string[] = ["iam.serviceAccounts.signBlob"];

/** A custom role id per bucket: bucket names are globally unique, role ids only within a project. */
export function urlSigningRoleId(bucketName: string): string {
  return fitName(`gitlabRunnerUrlSigning_${bucketName}`, 64).replace(/-/g, "_");
}

export class CacheBucket extends Construct {
  public readonly bucket: StorageBucket;
  public readonly bucketName: string;
  public readonly expiryDays: number;
  public readonly grantUrlSigning: boolean;
  /** The custom role with URL_SIGNING_PERMISSIONS, when `grantUrlSigning`. */
  public readonly urlSigningRole?: ProjectIamCustomRole;
  public readonly forceDestroy: boolean;

  constructor(scope: Construct, id: string, props: CacheBucketProps) {
    super(scope, id);
    this.expiryDays = props.expiryDays ?? 14;
    this.grantUrlSigning = props.grantUrlSigning ?? true;
    this.forceDestroy = props.forceDestroy ?? true;
    this.bucketName = props.name;
    this.checkProps(props);

    this.bucket = new StorageBucket(this, "Resource", {
      name: props.name,
      project: props.project,
      location: props.location,
      storageClass: "STANDARD",
      uniformBucketLevelAccess: true,
      publicAccessPrevention: "enforced",
      forceDestroy: this.forceDestroy,
      labels: { ...props.labels },
      lifecycleRule: [{ action: { type: "Delete" }, condition: { age: this.expiryDays } }],
      // Cache objects are disposable: keeping deleted ones for the default 7 days only costs money.
      softDeletePolicy: { retentionDurationSeconds: 0 },
      versioning: { enabled: false },
    });

    if (this.grantUrlSigning) {
      const roleId = props.urlSigningRoleId ?? urlSigningRoleId(props.name);
      checkPattern(this, "urlSigningRoleId", roleId, /^[a-zA-Z0-9_.]{3,64}$/, "3 to 64 letters, digits, '_' or '.'");
      this.urlSigningRole = new ProjectIamCustomRole(this, "UrlSigningRole", {
        project: props.project,
        roleId,
        title: `GitLab runner cache URL signing (${roleId})`,
        description: "Sign cache URLs as the account itself (signBlob), and nothing else.",
        permissions: [...URL_SIGNING_PERMISSIONS],
        stage: "GA",
      });
    }
    props.objectAdminServiceAccountEmails.forEach((email, index) => {
      const member = `serviceAccount:${email}`;
      new StorageBucketIamMember(this, `ObjectAdmin${index}`, {
        bucket: this.bucket.name,
        role: "roles/storage.objectAdmin",
        member,
      });
      if (this.urlSigningRole) {
        new ServiceAccountIamMember(this, `UrlSigning${index}`, {
          serviceAccountId: `projects/${props.project}/serviceAccounts/${email}`,
          role: this.urlSigningRole.name,
          member,
        });
      }
    });
  }

  private checkProps(props: CacheBucketProps): void {
    checkPattern(this, "name", props.name, /^[a-z0-9][a-z0-9_-]{1,61}[a-z0-9]$/, "a bucket name: 3 to 63 lowercase letters, digits, '-' or '_', starting and ending with a letter or digit");
    if (!isToken(props.name) && props.name.startsWith("goog")) fail(this, "name", props.name, 'a bucket name that does not start with "goog"');
    checkIntegerRange(this, "expiryDays", this.expiryDays, 1, 3650);
    checkNonEmpty(this, "objectAdminServiceAccountEmails", props.objectAdminServiceAccountEmails, "service account (the shard's managers)");
  }
}
