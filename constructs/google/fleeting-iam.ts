/**
 * What one shard's runner managers may do on Google Cloud, and nothing more:
 * - drive their own worker groups (a custom role with exactly the googlecloud fleeting plugin's
 *   permissions, bound with an IAM condition naming those groups and their instances),
 * - read the shard's own runner token secret,
 * - write logs and metrics (Ops Agent).
 */
import { ProjectIamCustomRole } from "@cdktf/provider-google/lib/project-iam-custom-role";
import { ProjectIamMember } from "@cdktf/provider-google/lib/project-iam-member";
import { SecretManagerSecretIamMember } from "@cdktf/provider-google/lib/secret-manager-secret-iam-member";
import { ServiceAccount } from "@cdktf/provider-google/lib/service-account";
import { ServiceAccountIamMember } from "@cdktf/provider-google/lib/service-account-iam-member";
import { Annotations } from "cdktf";
import { Construct } from "constructs";
import { checkComputeName, checkNonEmpty, checkPattern, checkUnique, fail } from "./checks";

/**
 * The permissions the googlecloud fleeting plugin uses, per GitLab's Docker Autoscaler docs:
 * read and resize its instance group (instanceGroupManagers get/update; listManagedInstances and
 * deleteInstances are covered by these two), read an instance for its address, and set instance
 * metadata to push the connector's SSH key. `compute.instanceGroupManagers.list` is not called by the
 * plugin, and under the resource-name condition below it could never be granted anyway (a list is
 * checked on the project, not on a group), so it is left out.
 */
export const FLEETING_PERMISSIONS: readonly string[] = [
  "compute.instanceGroupManagers.get",
  "compute.instanceGroupManagers.update",
  "compute.instances.get",
  "compute.instances.setMetadata",
];

/** Project-wide roles every manager needs for the Ops Agent (logs, Prometheus metrics). */
export const MANAGER_PROJECT_ROLES: readonly string[] = ["roles/logging.logWriter", "roles/monitoring.metricWriter"];

/** A worker group the managers drive. */
export interface FleetingWorkerGroup {
  readonly name: string;
  readonly zone: string;
}

export interface FleetingIamProps {
  /** Project id of the fleet (IAM conditions name resources by it). */
  readonly project: string;
  /** Id of the custom role holding FLEETING_PERMISSIONS (letters, digits, '_' and '.'). */
  readonly roleId: string;
  /** Title of the custom role. @default - "GitLab runner fleeting (<roleId>)" */
  readonly roleTitle?: string;
  /**
   * Create the managers' dedicated service account with this account id (6 to 30 characters).
   * Exclusive with `serviceAccountEmail`.
   * @default - none: `serviceAccountEmail` must be given
   */
  readonly serviceAccountId?: string;
  /** Use this existing service account for the managers. Exclusive with `serviceAccountId`. @default - none */
  readonly serviceAccountEmail?: string;
  /** The worker groups of this shard's managers; the fleeting role is limited to them and their instances. */
  readonly workerGroups: readonly FleetingWorkerGroup[];
  /**
   * The shard's manager groups. A manager drains itself before its group replaces it: it reads its
   * group and asks it to recreate its VM (instanceGroupManagers get/update, the fleeting role's
   * first two permissions), so the role is also bound with a condition naming these groups, not
   * their instances.
   * @default [] (no such binding)
   */
  readonly managerGroups?: readonly FleetingWorkerGroup[];
  /**
   * Service account the workers run as. When set, managers get iam.serviceAccountUser on it
   * (setting metadata on an instance requires acting as its account).
   * @default - workers have no service account, nothing to grant
   */
  readonly workerServiceAccountEmail?: string;
  /**
   * Secret Manager secret id of the shard's runner token (created by onboarding, not Terraform).
   * @default - no secret access (secrets store "local"); a warning is added
   */
  readonly tokenSecretId?: string;
}

export class FleetingIam extends Construct {
  /** Email of the managers' service account. */
  public readonly serviceAccountEmail: string;
  /** `serviceAccount:<email>` member string. */
  public readonly serviceAccountMember: string;
  /** The created service account, when `serviceAccountId` was given. */
  public readonly serviceAccount?: ServiceAccount;
  public readonly role: ProjectIamCustomRole;
  public readonly permissions: readonly string[] = FLEETING_PERMISSIONS;
  /** The IAM condition expression limiting the fleeting role to the worker groups. */
  public readonly conditionExpression: string;
  public readonly tokenSecretId?: string;

  constructor(scope: Construct, id: string, props: FleetingIamProps) {
    super(scope, id);
    this.checkProps(props);
    this.tokenSecretId = props.tokenSecretId;

    if (props.serviceAccountId !== undefined) {
      this.serviceAccount = new ServiceAccount(this, "ServiceAccount", {
        accountId: props.serviceAccountId,
        project: props.project,
        displayName: `GitLab runner managers ${props.serviceAccountId}`,
        description: "Runner managers of one shard: drive their worker groups, read their token secret.",
      });
      this.serviceAccountEmail = this.serviceAccount.email;
    } else {
      this.serviceAccountEmail = props.serviceAccountEmail!;
    }
    this.serviceAccountMember = `serviceAccount:${this.serviceAccountEmail}`;

    this.role = new ProjectIamCustomRole(this, "FleetingRole", {
      project: props.project,
      roleId: props.roleId,
      title: props.roleTitle ?? `GitLab runner fleeting (${props.roleId})`,
      description: "Resize and inspect GitLab runner worker groups and push SSH keys to their instances.",
      permissions: [...FLEETING_PERMISSIONS],
      stage: "GA",
    });

    // No resource-level IAM exists for instance groups, and worker instances come and go, so the role
    // is bound on the project with a condition naming exactly this shard's groups and their instances.
    this.conditionExpression = workerGroupCondition(props.project, props.workerGroups);
    new ProjectIamMember(this, "FleetingBinding", {
      project: props.project,
      role: this.role.name,
      member: this.serviceAccountMember,
      condition: {
        title: "own-worker-groups-only",
        description: "Only this shard's worker groups and the instances they create.",
        expression: this.conditionExpression,
      },
    });

    if (props.managerGroups?.length) {
      new ProjectIamMember(this, "ManagerDrainBinding", {
        project: props.project,
        role: this.role.name,
        member: this.serviceAccountMember,
        condition: {
          title: "own-manager-groups-only",
          description: "Only this shard's manager groups: a manager drains, then asks its group to recreate it.",
          expression: managerGroupCondition(props.project, props.managerGroups),
        },
      });
    }

    MANAGER_PROJECT_ROLES.forEach((role) => {
      new ProjectIamMember(this, role.replace(/^roles\//, ""), { project: props.project, role, member: this.serviceAccountMember });
    });

    if (props.tokenSecretId !== undefined) {
      new SecretManagerSecretIamMember(this, "TokenSecretAccess", {
        project: props.project,
        secretId: props.tokenSecretId,
        role: "roles/secretmanager.secretAccessor",
        member: this.serviceAccountMember,
      });
    } else {
      Annotations.of(this).addWarning(
        "No token secret: managers get no secret access and wait for an operator to place the runner token in /etc/gitlab-runner/runner-token.",
      );
    }

    if (props.workerServiceAccountEmail !== undefined) {
      new ServiceAccountIamMember(this, "WorkerServiceAccountUser", {
        serviceAccountId: `projects/${props.project}/serviceAccounts/${props.workerServiceAccountEmail}`,
        role: "roles/iam.serviceAccountUser",
        member: this.serviceAccountMember,
      });
    }
  }

  private checkProps(props: FleetingIamProps): void {
    checkPattern(this, "roleId", props.roleId, /^[a-zA-Z0-9_.]{3,64}$/, "3 to 64 letters, digits, '_' or '.'");
    const hasId = props.serviceAccountId !== undefined;
    const hasEmail = props.serviceAccountEmail !== undefined;
    if (hasId === hasEmail) {
      fail(this, "serviceAccountId/serviceAccountEmail", { serviceAccountId: props.serviceAccountId, serviceAccountEmail: props.serviceAccountEmail },
        "exactly one of them: an account id to create, or the email of an existing account");
    }
    if (props.serviceAccountId !== undefined) {
      checkPattern(this, "serviceAccountId", props.serviceAccountId, /^[a-z]([-a-z0-9]{4,28}[a-z0-9])$/, "6 to 30 lowercase letters, digits or '-', starting with a letter");
    }
    checkNonEmpty(this, "workerGroups", props.workerGroups, "worker group");
    props.workerGroups.forEach((group, i) => checkComputeName(this, `workerGroups[${i}].name`, group.name));
    checkUnique(this, "workerGroups[].name", props.workerGroups.map((group) => group.name));
    if (props.tokenSecretId !== undefined) {
      checkPattern(this, "tokenSecretId", props.tokenSecretId, /^[a-zA-Z0-9_-]{1,255}$/, "a Secret Manager secret id: letters, digits, '_' or '-'");
    }
  }
}

/**
 * CEL over `resource.name`: each worker group itself, or an instance whose name starts with the
 * group's base instance name followed by '-' (MIG instance names are "<base>-<4 characters>").
 * The prefix also admits the instances of a group named "<base>-...": the model refuses shard names that
 * would make one (lib/model/worker-group-prefixes.ts), since the condition cannot name a pattern.
 */
/** The manager groups themselves (not their instances: a manager never touches another VM directly). */
export function managerGroupCondition(project: string, groups: readonly FleetingWorkerGroup[]): string {
  return groups.map((group) => `resource.name == "projects/${project}/zones/${group.zone}/instanceGroupManagers/${group.name}"`).join(" || ");
}

export function workerGroupCondition(project: string, groups: readonly FleetingWorkerGroup[]): string {
  return groups
    .flatMap((group) => {
      const zonePath = `projects/${project}/zones/${group.zone}`;
      return [
        `resource.name == "${zonePath}/instanceGroupManagers/${group.name}"`,
        `resource.name.startsWith("${zonePath}/instances/${group.name}-")`,
      ];
    })
    .join(" || ");
}
