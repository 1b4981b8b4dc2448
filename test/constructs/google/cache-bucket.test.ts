import { ServiceAccountIamMember } from "@cdktf/provider-google/lib/service-account-iam-member";
import { StorageBucket } from "@cdktf/provider-google/lib/storage-bucket";
import { CacheBucket, type CacheBucketProps } from "../../../constructs/google/cache-bucket";
import { UserInputError } from "../../../lib/process/errors";
import { googleTestStack, resourcesOf, synth, TEST_PROJECT } from "./support";

const MANAGERS = "rm-cell-9-small@acme-test-project.iam.gserviceaccount.com";

function cacheOf(props: Partial<CacheBucketProps> = {}) {
  const stack = googleTestStack();
  const cache = new CacheBucket(stack, "cache", {
    name: "acme-test-project-cell-9-small-cache",
    project: TEST_PROJECT,
    location: "europe-west4",
    labels: { "gitlab-cell": "cell-9" },
    objectAdminServiceAccountEmails: [MANAGERS],
    ...props,
  });
  return { stack, cache, json: synth(stack) };
}

describe("CacheBucket", () => {
  test("the bucket is private (uniform access, public access prevention enforced) and deleted with its objects: the cache is disposable", () => {
    const { json } = cacheOf();
    expect(json).toHaveResourceWithProperties(StorageBucket, {
      name: "acme-test-project-cell-9-small-cache",
      location: "europe-west4",
      uniform_bucket_level_access: true,
      public_access_prevention: "enforced",
      force_destroy: true,
      labels: { "gitlab-cell": "cell-9" },
    });
  });

  test("keeps a bucket that holds objects with forceDestroy false", () => {
    expect(cacheOf({ forceDestroy: false }).json).toHaveResourceWithProperties(StorageBucket, { force_destroy: false });
  });

  test("objects are deleted after the expiry days", () => {
    const { json, cache } = cacheOf({ expiryDays: 7 });
    expect(cache.expiryDays).toBe(7);
    expect(json).toHaveResourceWithProperties(StorageBucket, {
      lifecycle_rule: [{ action: { type: "Delete" }, condition: { age: 7 } }],
    });
  });

  test("expiry defaults to 14 days", () => {
    const { json } = cacheOf();
    expect(resourcesOf(json, "google_storage_bucket")[0].lifecycle_rule[0].condition.age).toBe(14);
  });

  test("only the managers' service account gets objectAdmin, on this bucket only", () => {
    const { json } = cacheOf();
    expect(resourcesOf(json, "google_storage_bucket_iam_member")).toEqual([
      {
        bucket: expect.stringMatching(/^\$\{google_storage_bucket\..+\.name\}$/),
        role: "roles/storage.objectAdmin",
        member: `serviceAccount:${MANAGERS}`,
      },
    ]);
    expect(resourcesOf(json, "google_project_iam_member")).toHaveLength(0);
  });

  test("each manager account may sign cache URLs as itself, through a custom role holding signBlob alone", () => {
    const { json } = cacheOf();
    // Not roles/iam.serviceAccountTokenCreator: that also grants getAccessToken, signJwt and getOpenIdToken.
    expect(resourcesOf(json, "google_project_iam_custom_role")).toEqual([
      expect.objectContaining({ role_id: "gitlabRunnerUrlSigning_acme_test_project_cell_9_small_cache", permissions: ["iam.serviceAccounts.signBlob"], project: TEST_PROJECT }),
    ]);
    expect(json).toHaveResourceWithProperties(ServiceAccountIamMember, {
      service_account_id: `projects/${TEST_PROJECT}/serviceAccounts/${MANAGERS}`,
      role: expect.stringMatching(/^\$\{google_project_iam_custom_role\..+\.name\}$/),
      member: `serviceAccount:${MANAGERS}`,
    });
    expect(JSON.stringify(json)).not.toContain("serviceAccountTokenCreator");
    const unsigned = cacheOf({ grantUrlSigning: false }).json;
    expect(resourcesOf(unsigned, "google_service_account_iam_member")).toHaveLength(0);
    expect(resourcesOf(unsigned, "google_project_iam_custom_role")).toHaveLength(0);
  });

  test("fails when the expiry is 0 days", () => {
    expect(() => cacheOf({ expiryDays: 0 })).toThrow(UserInputError);
    expect(() => cacheOf({ expiryDays: 0 })).toThrow(/expiryDays is 0; expected an integer from 1 to 3650/);
  });

  test("fails when the bucket name is not a valid bucket name", () => {
    expect(() => cacheOf({ name: "Cell_9" })).toThrow(/name is "Cell_9"; expected a bucket name/);
  });

  test("fails when no service account would use the cache", () => {
    expect(() => cacheOf({ objectAdminServiceAccountEmails: [] })).toThrow(/objectAdminServiceAccountEmails/);
  });
});
