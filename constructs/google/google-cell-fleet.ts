/**
 * A cell's whole runner fleet on Google Cloud: one network, and per shard (construct scope
 * "shard-<name>") the managers' IAM, the cache bucket, the manager groups and the worker groups;
 * plus monitoring. It takes plain props (stacks/google-fleet-props.ts maps a model to them) and
 * wires what only exists at synth: the subnetwork and the managers' service account. The stack
 * (provider, backend) is created by the caller. Construct ids are a contract: renaming one
 * replaces real infrastructure.
 */
import { ManagerLiveConfig, type ManagerLiveConfigProps } from "./manager-live-config";
import { Construct } from "constructs";
import { addFleetOutputs, byShard, moveShardResources, type ShardFleet } from "../shard-fleet";
import { CacheBucket, type CacheBucketProps } from "./cache-bucket";
import { checkUnique } from "./checks";
import { FleetMonitoring, type FleetMonitoringProps } from "./fleet-monitoring";
import { FleetingIam, type FleetingIamProps } from "./fleeting-iam";
import { FleetNetwork, type FleetNetworkProps } from "./network";
import { ProjectServices } from "./project-services";
import { RunnerManagerGroup, type RunnerManagerGroupProps } from "./runner-manager-group";
import { WorkerInstanceGroup, type WorkerInstanceGroupProps } from "./worker-instance-group";
import { WORKER_LOG_SCOPE, WorkerLogIdentity, type WorkerLogIdentityProps } from "./worker-log-identity";

/** One shard: its constructs' props, less what the fleet wires (project, region, subnetwork, service account). */
export interface GoogleShardProps {
  readonly name: string;
  /**
   * The shard's former name: every resource of its `shard-<name>` scope moves from the `shard-<renamedFrom>`
   * scope (Terraform moved blocks, ../shard-fleet.ts moveShardResources). Its other props keep the names
   * its resources were created under (stacks/*-fleet-props.ts do), or the move is followed by a replacement.
   * @default - not renamed
   */
  readonly renamedFrom?: string;
  readonly iam: Omit<FleetingIamProps, "project">;
  /** @default - no cache bucket */
  readonly cache?: Omit<CacheBucketProps, "project" | "location" | "objectAdminServiceAccountEmails">;
  readonly managers: Omit<RunnerManagerGroupProps, "project" | "region" | "subnetwork" | "serviceAccountEmail">;
  readonly workers: Omit<WorkerInstanceGroupProps, "project" | "region" | "subnetwork">;
  /**
   * A log-writing identity for the workers, so their boot logs reach Cloud Logging.
   * @default - workers have no service account and their boots leave no trace once they are removed
   */
  readonly workerLogs?: Omit<WorkerLogIdentityProps, "project">;
  /** Where each manager slot reads its config.toml at run time (constructs/google/manager-live-config.ts). */
  readonly liveConfig: Omit<ManagerLiveConfigProps, "project" | "reader">;
}

export interface GoogleCellFleetProps {
  /** Project of every resource. */
  readonly project: string;
  /** Region of the subnetwork, the cache buckets and the templates. */
  readonly region: string;
  readonly network: Omit<FleetNetworkProps, "project" | "region">;
  /** In the order the outputs list them. */
  readonly shards: readonly GoogleShardProps[];
  /** @default - no monitoring */
  readonly monitoring?: Omit<FleetMonitoringProps, "project">;
  /**
   * Enable the APIs the fleet uses in the project (constructs/google/project-services.ts), every resource
   * depending on them. Turn off only where the project's APIs are managed elsewhere.
   * @default true
   */
  readonly enableProjectServices?: boolean;
}

/** The constructs of one shard. */
export type GoogleShardFleet = ShardFleet<FleetingIam, CacheBucket, RunnerManagerGroup, WorkerInstanceGroup>;

export class GoogleCellFleet extends Construct {
  public readonly network: FleetNetwork;
  /** Per shard, in props order. */
  public readonly shards: readonly GoogleShardFleet[];
  public readonly monitoring?: FleetMonitoring;
  /** The enabled APIs; undefined with `enableProjectServices: false`. */
  public readonly projectServices?: ProjectServices;

  constructor(scope: Construct, id: string, props: GoogleCellFleetProps) {
    super(scope, id);
    // Shard names key the outputs and name the shard scopes.
    checkUnique(this, "shards[].name", props.shards.map((shard) => shard.name));
    const { project, region } = props;
    if (props.enableProjectServices ?? true) this.projectServices = new ProjectServices(this, "services", { project });
    this.network = new FleetNetwork(this, "network", { ...props.network, project, region });
    this.shards = props.shards.map((shard) => this.addShard(project, region, shard));
    if (props.monitoring) this.monitoring = new FleetMonitoring(this, "monitoring", { ...props.monitoring, project });
    this.addOutputs();
    // Last, so that every resource created above waits for the APIs it calls.
    this.projectServices?.precede(this);
  }

  private addShard(project: string, region: string, shard: GoogleShardProps): GoogleShardFleet {
    const scope = new Construct(this, `shard-${shard.name}`);
    const subnetwork = this.network.subnetwork;
    const workerLogs = shard.workerLogs ? new WorkerLogIdentity(scope, "worker-logs", { ...shard.workerLogs, project }) : undefined;
    const iam = new FleetingIam(scope, "iam", { ...shard.iam, project, workerServiceAccountEmail: workerLogs?.email ?? shard.iam.workerServiceAccountEmail });
    const serviceAccountEmail = iam.serviceAccountEmail;
    const cache = shard.cache
      ? new CacheBucket(scope, "cache", { ...shard.cache, project, location: region, objectAdminServiceAccountEmails: [serviceAccountEmail] })
      : undefined;
    // Before the managers: a manager's first boot reads its config.toml from there.
    new ManagerLiveConfig(scope, "live-config", { ...shard.liveConfig, project, reader: iam.serviceAccountMember });
    const managers = new RunnerManagerGroup(scope, "managers", { ...shard.managers, project, region, subnetwork, serviceAccountEmail });
    const workers = new WorkerInstanceGroup(scope, "workers", {
      ...shard.workers,
      project,
      region,
      subnetwork,
      ...(workerLogs ? { serviceAccountEmail: workerLogs.email, serviceAccountScopes: [WORKER_LOG_SCOPE] } : {}),
    });
    if (shard.renamedFrom !== undefined) moveShardResources(scope, `shard-${shard.renamedFrom}`);
    return { name: shard.name, scope, iam, cache, managers, workers };
  }

  /** Outputs named after their resources, keyed by shard name. */
  private addOutputs(): void {
    addFleetOutputs(this, {
      network_self_link: { value: this.network.network, description: "Network of the fleet (self link or name)." },
      subnetwork_self_link: { value: this.network.subnetwork, description: "Subnetwork of the fleet (self link or name)." },
      manager_group_names: {
        value: byShard(this.shards, (fleet) => fleet.managers.groupNames),
        description: "Per shard, the runner manager instance groups in slot order (one VM each).",
      },
      worker_group_names: {
        value: byShard(this.shards, (fleet) => fleet.workers.groupNames),
        description: "Per shard, the worker instance groups in slot order; group i is driven by manager slot i only.",
      },
      manager_service_account_emails: {
        value: byShard(this.shards, (fleet) => fleet.iam.serviceAccountEmail),
        description: "Per shard, the service account of its runner managers.",
      },
      cache_bucket_names: {
        value: byShard(this.shards, (fleet) => fleet.cache?.bucketName),
        description: "Per shard with a cache, its GCS cache bucket.",
      },
    });
  }
}
