/**
 * The workers of one shard: per manager slot an instance template and a zonal managed
 * instance group that only that slot's runner scales (googlecloud fleeting plugin).
 *
 * There is no autoscaler resource: the runner sets the group's size, so Terraform creates the
 * group at size 0 and ignores target_size from then on.
 *
 * Workers run arbitrary CI job code, and an attached account's token is one metadata-server
 * request away from every job. Without `serviceAccountEmail` they have no account at all; the cell
 * fleet gives them a log-writing one with the logging.write scope only (./worker-log-identity.ts),
 * so a broken boot leaves its log behind. FleetingIam then grants the managers
 * iam.serviceAccountUser on it, which managing the workers' metadata requires.
 */
import { ComputeInstanceGroupManager } from "@cdktf/provider-google/lib/compute-instance-group-manager";
import {
  ComputeInstanceTemplate,
  type ComputeInstanceTemplateScheduling,
} from "@cdktf/provider-google/lib/compute-instance-template";
import { Construct } from "constructs";
import { GOOGLE_NAME_RULES } from "../../lib/names/cloud-name-rules";
import { checkComputeName, checkName, checkIntegerRange, checkNonEmpty, checkNotBlank, checkUnique } from "./checks";
import { bootDisk, hostMaintenancePolicy, privateInterface, SHIELDED_VM } from "./instance-template-parts";

/** One worker group, driven by the manager slot of the same index. */
export interface WorkerGroupSlotProps {
  /** Name of the managed instance group (the fleeting plugin's `name`) and base name of its VMs. */
  readonly name: string;
  /** Zone of the group (the fleeting plugin's `zone`). */
  readonly zone: string;
  /** Name prefix of the group's instance templates (`templateNamePrefix` in lib/model/google-names.ts). */
  readonly templateNamePrefix: string;
}

export interface WorkerInstanceGroupProps {
  /** Project of every resource. @default - the provider's project */
  readonly project?: string;
  /** Region of the templates, used to resolve a subnetwork given by name. @default - the provider's region */
  readonly region?: string;
  /** One group per manager slot, in slot order. */
  readonly groups: readonly WorkerGroupSlotProps[];
  /** Compute Engine machine type of the workers, for example n2d-standard-2. */
  readonly machineType: string;
  /** Boot disk size in GB. @default 100 */
  readonly diskSizeGb?: number;
  /** Boot disk type. @default "pd-balanced" */
  readonly diskType?: string;
  /** Boot image or image family with Docker (or installable at boot), such as ubuntu-os-cloud/ubuntu-2404-lts-amd64. */
  readonly image: string;
  /** Subnetwork name or self link of the workers. */
  readonly subnetwork: string;
  /** Network tags of the workers; the SSH firewall rule targets them. @default [] */
  readonly networkTags?: readonly string[];
  /** Labels of the templates (and so of the VMs and disks). @default {} */
  readonly labels?: Readonly<Record<string, string>>;
  /** Spot VMs: cheaper, may be reclaimed at any time (the job then fails and is retried by GitLab if configured). @default false */
  readonly spot?: boolean;
  /** The workers' startup script (bash): Docker and the connector user. */
  readonly startupScript: string;
  /** Service account of the workers. @default - none: jobs get no Google credentials */
  readonly serviceAccountEmail?: string;
  /** OAuth scopes of the workers' token, with `serviceAccountEmail`. @default ["cloud-platform"] */
  readonly serviceAccountScopes?: readonly string[];
}

/** Spot: reclaimable at any time, so never restarted or migrated, deleted when reclaimed. */
const SPOT_SCHEDULING: ComputeInstanceTemplateScheduling = {
  provisioningModel: "SPOT",
  preemptible: true,
  automaticRestart: false,
  onHostMaintenance: "TERMINATE",
  instanceTerminationAction: "DELETE",
};

/** On-demand: restarted after a failure, live-migrated where the machine series supports it (TERMINATE elsewhere). */
function standardScheduling(machineType: string): ComputeInstanceTemplateScheduling {
  return { provisioningModel: "STANDARD", preemptible: false, automaticRestart: true, onHostMaintenance: hostMaintenancePolicy(machineType) };
}

export class WorkerInstanceGroup extends Construct {
  public readonly diskSizeGb: number;
  public readonly diskType: string;
  public readonly image: string;
  public readonly spot: boolean;
  public readonly serviceAccountEmail?: string;
  /** Instance templates, in slot order. */
  public readonly templates: ComputeInstanceTemplate[] = [];
  /** Managed instance groups, in slot order. */
  public readonly groups: ComputeInstanceGroupManager[] = [];
  /** Group names, in slot order (plain strings). */
  public readonly groupNames: readonly string[];

  constructor(scope: Construct, id: string, props: WorkerInstanceGroupProps) {
    super(scope, id);
    this.diskSizeGb = props.diskSizeGb ?? 100;
    this.diskType = props.diskType ?? "pd-balanced";
    this.image = props.image;
    this.spot = props.spot ?? false;
    this.serviceAccountEmail = props.serviceAccountEmail;
    this.groupNames = props.groups.map((group) => group.name);
    this.checkProps(props);

    props.groups.forEach((group, index) => {
      const template = new ComputeInstanceTemplate(this, `Template${index}`, {
        namePrefix: group.templateNamePrefix,
        project: props.project,
        region: props.region,
        description: `GitLab runner workers of manager slot ${index} (${group.name}).`,
        machineType: props.machineType,
        disk: [bootDisk(this.image, this.diskSizeGb, this.diskType)],
        // Never an external IP: the manager connects over the private network.
        networkInterface: [privateInterface(props.subnetwork, { externalIp: false })],
        tags: [...(props.networkTags ?? [])],
        labels: { ...props.labels },
        metadata: {
          // The googlecloud fleeting plugin pushes its SSH key through instance metadata, which OS Login ignores.
          "enable-oslogin": "FALSE",
          // Only the plugin's instance-level keys are accepted, never project-wide ones.
          "block-project-ssh-keys": "TRUE",
          "startup-script": props.startupScript,
        },
        ...(props.serviceAccountEmail
          ? { serviceAccount: { email: props.serviceAccountEmail, scopes: [...(props.serviceAccountScopes ?? ["cloud-platform"])] } }
          : {}),
        shieldedInstanceConfig: SHIELDED_VM,
        scheduling: this.spot ? SPOT_SCHEDULING : standardScheduling(props.machineType),
        lifecycle: { createBeforeDestroy: true },
      });
      this.templates.push(template);

      this.groups.push(
        new ComputeInstanceGroupManager(this, `Group${index}`, {
          name: group.name,
          project: props.project,
          zone: group.zone,
          baseInstanceName: group.name,
          description: `GitLab runner workers driven by manager slot ${index} only; sized by the runner.`,
          targetSize: 0,
          version: [{ name: "primary", instanceTemplate: template.id }],
          // New workers use a new template; running ones finish their jobs and are never replaced mid-job.
          updatePolicy: { type: "OPPORTUNISTIC", minimalAction: "REPLACE" },
          waitForInstances: false,
          // The runner owns the size.
          lifecycle: { ignoreChanges: ["target_size"] },
        }),
      );
    });
  }

  private checkProps(props: WorkerInstanceGroupProps): void {
    checkNonEmpty(this, "groups", props.groups, "worker group (one per manager slot)");
    props.groups.forEach((group, i) => {
      checkComputeName(this, `groups[${i}].name`, group.name);
      // The name is also the base name of the group's instances ("<base>-xxxx", at most 63 characters).
      checkName(this, `groups[${i}].name`, group.name, GOOGLE_NAME_RULES.baseInstanceName);
      checkName(this, `groups[${i}].templateNamePrefix`, group.templateNamePrefix, GOOGLE_NAME_RULES.templateNamePrefix);
      checkNotBlank(this, `groups[${i}].zone`, group.zone, "a zone such as europe-west4-a");
    });
    checkUnique(this, "groups[].name", this.groupNames);
    checkIntegerRange(this, "diskSizeGb", this.diskSizeGb, 10, 65536);
    checkNotBlank(this, "machineType", props.machineType, "a Compute Engine machine type such as n2d-standard-2");
    checkNotBlank(this, "startupScript", props.startupScript, "the workers' startup script");
    (props.networkTags ?? []).forEach((tag, i) => checkComputeName(this, `networkTags[${i}]`, tag));
  }
}
