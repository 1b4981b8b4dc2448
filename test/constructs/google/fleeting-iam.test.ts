import { ProjectIamCustomRole } from "@cdktf/provider-google/lib/project-iam-custom-role";
import { ProjectIamMember } from "@cdktf/provider-google/lib/project-iam-member";
import { SecretManagerSecretIamMember } from "@cdktf/provider-google/lib/secret-manager-secret-iam-member";
import { ServiceAccount } from "@cdktf/provider-google/lib/service-account";
import { ServiceAccountIamMember } from "@cdktf/provider-google/lib/service-account-iam-member";
import { FleetingIam, type FleetingIamProps } from "../../../constructs/google/fleeting-iam";
import { UserInputError } from "../../../lib/process/errors";
import { googleTestStack, resourcesOf, synth, TEST_PROJECT, warningsOf } from "./support";

const WORKER_GROUPS = [
  { name: "cell-9-small-wrk-0", zone: "europe-west4-a" },
  { name: "cell-9-small-wrk-1", zone: "europe-west4-b" },
];
const EXISTING_EMAIL = "runner-managers@acme-test-project.iam.gserviceaccount.com";

function iamOf(props: Partial<FleetingIamProps> = {}) {
  const stack = googleTestStack();
  const iam = new FleetingIam(stack, "iam", {
    project: TEST_PROJECT,
    roleId: "gitlabRunnerFleeting_cell_9_small",
    serviceAccountEmail: EXISTING_EMAIL,
    workerGroups: WORKER_GROUPS,
    tokenSecretId: "gitlab-runner-cell-9-small",
    ...props,
  });
  return { stack, iam, json: synth(stack) };
}

describe("FleetingIam", () => {
  test("the custom role holds exactly the googlecloud fleeting plugin's permissions", () => {
    const { json } = iamOf();
    const roles = resourcesOf(json, "google_project_iam_custom_role");
    expect(roles).toHaveLength(1);
    expect([...roles[0].permissions].sort()).toEqual([
      "compute.instanceGroupManagers.get",
      "compute.instanceGroupManagers.update",
      "compute.instances.get",
      "compute.instances.setMetadata",
    ]);
    expect(json).toHaveResourceWithProperties(ProjectIamCustomRole, { role_id: "gitlabRunnerFleeting_cell_9_small", project: TEST_PROJECT });
  });

  test("the role is bound to the managers only for their own worker groups and those groups' instances", () => {
    const { json, iam } = iamOf();
    const binding = resourcesOf(json, "google_project_iam_member").find((member) => member.condition);
    expect(binding.member).toBe(`serviceAccount:${EXISTING_EMAIL}`);
    expect(binding.role).toMatch(/^\$\{google_project_iam_custom_role\..+\.name\}$/);
    expect(binding.condition.expression).toBe(iam.conditionExpression);
    for (const group of WORKER_GROUPS) {
      const zone = `projects/${TEST_PROJECT}/zones/${group.zone}`;
      expect(iam.conditionExpression).toContain(`resource.name == "${zone}/instanceGroupManagers/${group.name}"`);
      expect(iam.conditionExpression).toContain(`resource.name.startsWith("${zone}/instances/${group.name}-")`);
    }
    expect(iam.conditionExpression.split(" || ")).toHaveLength(WORKER_GROUPS.length * 2);
  });

  test("managers may read their shard's token secret and nothing else in Secret Manager", () => {
    const { json } = iamOf();
    const grants = resourcesOf(json, "google_secret_manager_secret_iam_member");
    expect(grants).toEqual([
      expect.objectContaining({
        secret_id: "gitlab-runner-cell-9-small",
        role: "roles/secretmanager.secretAccessor",
        member: `serviceAccount:${EXISTING_EMAIL}`,
      }),
    ]);
    const projectRoles = resourcesOf(json, "google_project_iam_member").map((member) => member.role);
    expect(projectRoles.filter((role: string) => role.startsWith("roles/secretmanager"))).toEqual([]);
  });

  test("managers write logs and metrics", () => {
    const { json } = iamOf();
    for (const role of ["roles/logging.logWriter", "roles/monitoring.metricWriter"]) {
      expect(json).toHaveResourceWithProperties(ProjectIamMember, { role, member: `serviceAccount:${EXISTING_EMAIL}` });
    }
    expect(resourcesOf(json, "google_project_iam_member")).toHaveLength(3);
  });

  test("creates the managers' dedicated service account when given an account id", () => {
    const { json, iam } = iamOf({ serviceAccountEmail: undefined, serviceAccountId: "rm-cell-9-small" });
    expect(json).toHaveResourceWithProperties(ServiceAccount, { account_id: "rm-cell-9-small", project: TEST_PROJECT });
    expect(iam.serviceAccountEmail).toMatch(/^\$\{TfToken\[TOKEN\.\d+\]\}$/);
    expect(json).toHaveResourceWithProperties(SecretManagerSecretIamMember, {
      member: expect.stringMatching(/^serviceAccount:\$\{google_service_account\..+\.email\}$/),
    });
  });

  test("grants no secret access and warns when there is no token secret", () => {
    const { json, stack } = iamOf({ tokenSecretId: undefined });
    expect(resourcesOf(json, "google_secret_manager_secret_iam_member")).toHaveLength(0);
    expect(warningsOf(stack).join("\n")).toMatch(/No token secret/);
  });

  test("lets managers act as the workers' service account only when workers have one", () => {
    expect(resourcesOf(iamOf().json, "google_service_account_iam_member")).toHaveLength(0);
    const { json } = iamOf({ workerServiceAccountEmail: "workers@acme-test-project.iam.gserviceaccount.com" });
    expect(json).toHaveResourceWithProperties(ServiceAccountIamMember, {
      service_account_id: `projects/${TEST_PROJECT}/serviceAccounts/workers@acme-test-project.iam.gserviceaccount.com`,
      role: "roles/iam.serviceAccountUser",
      member: `serviceAccount:${EXISTING_EMAIL}`,
    });
  });

  test("fails when both or neither of serviceAccountId and serviceAccountEmail are given", () => {
    expect(() => iamOf({ serviceAccountId: "rm-cell-9-small" })).toThrow(UserInputError);
    expect(() => iamOf({ serviceAccountEmail: undefined })).toThrow(/expected exactly one of them/);
  });

  test("fails when the role id has characters IAM refuses", () => {
    expect(() => iamOf({ roleId: "gitlab-runner-fleeting" })).toThrow(/roleId is "gitlab-runner-fleeting"; expected 3 to 64 letters/);
  });

  test("fails when there is no worker group to scope the role to", () => {
    expect(() => iamOf({ workerGroups: [] })).toThrow(/workerGroups is \[\]; expected at least one worker group/);
  });
});
