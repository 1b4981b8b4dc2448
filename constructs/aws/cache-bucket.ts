/**
 * The S3 bucket of a shard's distributed runner cache: private, encrypted, TLS only, and
 * self-cleaning. Cache objects are disposable, so the bucket keeps no versions.
 */
import { Construct } from "constructs";
import { S3Bucket } from "@cdktf/provider-aws/lib/s3-bucket";
import { S3BucketLifecycleConfiguration } from "@cdktf/provider-aws/lib/s3-bucket-lifecycle-configuration";
import { S3BucketOwnershipControls } from "@cdktf/provider-aws/lib/s3-bucket-ownership-controls";
import { S3BucketPolicy } from "@cdktf/provider-aws/lib/s3-bucket-policy";
import { S3BucketPublicAccessBlock } from "@cdktf/provider-aws/lib/s3-bucket-public-access-block";
import { S3BucketServerSideEncryptionConfigurationA } from "@cdktf/provider-aws/lib/s3-bucket-server-side-encryption-configuration";
import { checkIntegerRange, checkPattern, fail, isToken } from "./checks";

/** S3 general purpose bucket names: 3 to 63 lowercase letters, digits, '.' and '-', alphanumeric at both ends. */
const BUCKET_NAME = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

export interface CacheBucketProps {
  /** Bucket name (`cacheBucketName(model, shard)`); global across AWS. */
  readonly bucketName: string;
  /**
   * Objects are deleted this many days after they were written.
   * @default 14
   */
  readonly expirationDays?: number;
  /**
   * Let `terraform destroy` delete a bucket that still holds cache objects (they are disposable).
   * @default true
   */
  readonly forceDestroy?: boolean;
  /**
   * Tags of the bucket.
   * @default {}
   */
  readonly tags?: Record<string, string>;
}

export class CacheBucket extends Construct {
  public readonly bucketName: string;
  public readonly expirationDays: number;
  public readonly forceDestroy: boolean;
  /** Multipart uploads left unfinished (a job killed mid-upload) are aborted after this many days. */
  public readonly abortIncompleteMultipartUploadDays = 1;
  public readonly bucket: S3Bucket;

  constructor(scope: Construct, id: string, props: CacheBucketProps) {
    super(scope, id);
    this.bucketName = props.bucketName;
    this.expirationDays = props.expirationDays ?? 14;
    this.forceDestroy = props.forceDestroy ?? true;

    checkPattern(this, "bucketName", props.bucketName, BUCKET_NAME, "an S3 bucket name: 3 to 63 lowercase letters, digits, '.' or '-', starting and ending with a letter or digit");
    if (!isToken(props.bucketName) && (props.bucketName.includes("..") || /^\d+\.\d+\.\d+\.\d+$/.test(props.bucketName))) {
      fail(this, "bucketName", props.bucketName, "an S3 bucket name without '..' that is not an IP address");
    }
    checkIntegerRange(this, "expirationDays", this.expirationDays, 1, 3650);

    this.bucket = new S3Bucket(this, "Resource", {
      bucket: props.bucketName,
      forceDestroy: this.forceDestroy,
      tags: props.tags,
    });
    const publicAccessBlock = new S3BucketPublicAccessBlock(this, "public-access-block", {
      bucket: this.bucket.id,
      blockPublicAcls: true,
      blockPublicPolicy: true,
      ignorePublicAcls: true,
      restrictPublicBuckets: true,
    });
    // ACLs disabled: the bucket owner owns every object, access is decided by IAM alone.
    new S3BucketOwnershipControls(this, "ownership-controls", {
      bucket: this.bucket.id,
      rule: { objectOwnership: "BucketOwnerEnforced" },
    });
    // SSE-S3 (AES256) rather than SSE-KMS: the runner hands presigned URLs to jobs, and with a KMS key every
    // cache read and write would need KMS rights on the key and pay a KMS request; SSE-S3 costs nothing extra.
    new S3BucketServerSideEncryptionConfigurationA(this, "encryption", {
      bucket: this.bucket.id,
      rule: [{ applyServerSideEncryptionByDefault: { sseAlgorithm: "AES256" } }],
    });
    new S3BucketLifecycleConfiguration(this, "lifecycle", {
      bucket: this.bucket.id,
      rule: [
        {
          id: "expire-cache",
          status: "Enabled",
          filter: [{ prefix: "" }],
          expiration: [{ days: this.expirationDays }],
          abortIncompleteMultipartUpload: [{ daysAfterInitiation: this.abortIncompleteMultipartUploadDays }],
        },
      ],
    });
    // A deny of every S3 action over plain HTTP. A wildcard is right here: this statement only takes rights away.
    new S3BucketPolicy(this, "tls-only-policy", {
      bucket: this.bucket.id,
      policy: JSON.stringify({
        Version: "2012-10-17",
        Statement: [
          {
            Sid: "DenyInsecureTransport",
            Effect: "Deny",
            Principal: "*",
            Action: "s3:*",
            Resource: [this.bucket.arn, `${this.bucket.arn}/*`],
            Condition: { Bool: { "aws:SecureTransport": "false" } },
          },
        ],
      }),
      // S3 rejects policy changes while the public access block is being applied.
      dependsOn: [publicAccessBlock],
    });
  }

  public get bucketArn(): string {
    return this.bucket.arn;
  }
}
