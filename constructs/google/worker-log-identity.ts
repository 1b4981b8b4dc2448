/**
 * The identity of one shard's workers on Google Cloud: a service account that may write logs and nothing
 * else, so a worker's boot (the startup script's output, which the guest agent's metadata script runner
 * sends to Cloud Logging when the VM may: "Viewing startup script output") is still readable after the
 * group has removed a worker that never became ready.
 *
 * Jobs run on the workers, so it holds roles/logging.logWriter only, and the workers request the
 * logging.write scope only: the token cannot call any other API even if the account were granted more later.
 * The role is granted on the project (Google grants it on no narrower resource, and IAM conditions name no log
 * there: https://cloud.google.com/iam/docs/roles-permissions/logging,
 * https://cloud.google.com/iam/docs/conditions-resource-attributes), so job containers are kept off the
 * metadata server instead: the worker's boot rejects their traffic to it (scripts/worker/runner-fleet-worker,
 * block_metadata_from_jobs). Privileged jobs can undo that, as they can anything on their worker.
 */
import { ProjectIamMember } from "@cdktf/provider-google/lib/project-iam-member";
import { ServiceAccount } from "@cdktf/provider-google/lib/service-account";
import { Construct } from "constructs";
import { GOOGLE_NAME_RULES } from "../../lib/names/cloud-name-rules";
import { checkName } from "./checks";

/** The only OAuth scope the workers' token carries. */
export const WORKER_LOG_SCOPE = "https://www.googleapis.com/auth/logging.write";
/** The only role the workers' account holds. */
export const WORKER_LOG_ROLE = "roles/logging.logWriter";

export interface WorkerLogIdentityProps {
  readonly project: string;
  /** Service account id (6 to 30 characters). */
  readonly serviceAccountId: string;
}

export class WorkerLogIdentity extends Construct {
  public readonly serviceAccount: ServiceAccount;
  public readonly email: string;

  constructor(scope: Construct, id: string, props: WorkerLogIdentityProps) {
    super(scope, id);
    checkName(this, "serviceAccountId", props.serviceAccountId, GOOGLE_NAME_RULES.serviceAccountId);
    this.serviceAccount = new ServiceAccount(this, "Resource", {
      accountId: props.serviceAccountId,
      project: props.project,
      displayName: `GitLab runner workers ${props.serviceAccountId}`,
      description: "Runner workers of one shard: write their boot logs, nothing else (jobs can read this account's token).",
    });
    this.email = this.serviceAccount.email;
    new ProjectIamMember(this, "LogWriter", {
      project: props.project,
      role: WORKER_LOG_ROLE,
      member: `serviceAccount:${this.serviceAccount.email}`,
    });
  }
}
