import { S3Bucket } from "@cdktf/provider-aws/lib/s3-bucket";
import { S3BucketOwnershipControls } from "@cdktf/provider-aws/lib/s3-bucket-ownership-controls";
import { S3BucketPublicAccessBlock } from "@cdktf/provider-aws/lib/s3-bucket-public-access-block";
import { S3BucketServerSideEncryptionConfigurationA } from "@cdktf/provider-aws/lib/s3-bucket-server-side-encryption-configuration";
import { S3BucketVersioningA } from "@cdktf/provider-aws/lib/s3-bucket-versioning";
import { CacheBucket, type CacheBucketProps } from "../../../constructs/aws/cache-bucket";
import { awsTestStack, expectNoTokenShapedStrings, referenceTo, resourcesOf, synthJson } from "./support";

function synthCache(props: Partial<CacheBucketProps> = {}) {
  const stack = awsTestStack();
  const cache = new CacheBucket(stack, "cache", { bucketName: "123456789012-cell-9-main-cache", ...props });
  const result = synthJson(stack);
  const bucketId = referenceTo(result.json, "aws_s3_bucket", "id", () => true);
  const bucketArn = referenceTo(result.json, "aws_s3_bucket", "arn", () => true);
  return { cache, bucketId, bucketArn, ...result };
}

describe("CacheBucket", () => {
  test("THEN the bucket has the given name and can be destroyed with its disposable contents", () => {
    const { text } = synthCache();
    expect(text).toHaveResourceWithProperties(S3Bucket, { bucket: "123456789012-cell-9-main-cache", force_destroy: true });
  });

  test("THEN all four public access blocks are on", () => {
    const { text, bucketId } = synthCache();
    expect(text).toHaveResourceWithProperties(S3BucketPublicAccessBlock, {
      bucket: bucketId,
      block_public_acls: true,
      block_public_policy: true,
      ignore_public_acls: true,
      restrict_public_buckets: true,
    });
  });

  test("THEN objects are encrypted at rest and ACLs are disabled", () => {
    const { text, bucketId } = synthCache();
    expect(text).toHaveResourceWithProperties(S3BucketServerSideEncryptionConfigurationA, {
      bucket: bucketId,
      rule: [{ apply_server_side_encryption_by_default: { sse_algorithm: "AES256" } }],
    });
    expect(text).toHaveResourceWithProperties(S3BucketOwnershipControls, { bucket: bucketId, rule: { object_ownership: "BucketOwnerEnforced" } });
  });

  test("THEN objects expire after the expiry days and unfinished uploads are aborted; no versions are kept", () => {
    const { json, text, cache } = synthCache({ expirationDays: 30 });
    const [lifecycle] = Object.values(resourcesOf(json, "aws_s3_bucket_lifecycle_configuration"));
    expect(lifecycle.rule).toEqual([
      expect.objectContaining({
        status: "Enabled",
        expiration: [{ days: 30 }],
        abort_incomplete_multipart_upload: [{ days_after_initiation: cache.abortIncompleteMultipartUploadDays }],
      }),
    ]);
    expect(text).not.toHaveResource(S3BucketVersioningA);
  });

  test("THEN the default expiry is 14 days", () => {
    expect(synthCache().cache.expirationDays).toBe(14);
  });

  test("THEN the bucket policy denies every request that is not over TLS", () => {
    const { json, bucketArn } = synthCache();
    const [policy] = Object.values(resourcesOf(json, "aws_s3_bucket_policy"));
    expect(JSON.parse(policy.policy).Statement).toEqual([
      {
        Sid: "DenyInsecureTransport",
        Effect: "Deny",
        Principal: "*",
        Action: "s3:*",
        Resource: [bucketArn, `${bucketArn}/*`],
        Condition: { Bool: { "aws:SecureTransport": "false" } },
      },
    ]);
  });

  test("THEN the synthesized JSON has no token-shaped strings", () => {
    expectNoTokenShapedStrings(synthCache().text);
  });

  describe("invariants", () => {
    test("fails when the bucket name has upper-case letters", () => {
      expect(() => synthCache({ bucketName: "Cell-9-Cache" })).toThrow(/cache: bucketName is "Cell-9-Cache"; expected an S3 bucket name/);
    });

    test("fails when the bucket name looks like an IP address", () => {
      expect(() => synthCache({ bucketName: "10.0.0.1" })).toThrow(/bucketName is "10.0.0.1"; expected an S3 bucket name without '..' that is not an IP address/);
    });

    test("fails when the expiry is 0 days", () => {
      expect(() => synthCache({ expirationDays: 0 })).toThrow("cache: expirationDays is 0; expected an integer from 1 to 3650.");
    });
  });
});
