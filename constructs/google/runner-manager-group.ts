/**
 * The runner managers of one shard: per slot an instance template and a zonal managed
 * instance group of exactly one VM, autohealed through the runner's metrics port.
 *
 * Why one single-instance group per slot rather than one group of N managers: slot i's
 * config.toml has one [[runners]] entry that drives worker group i alone (two managers
 * must never drive the same worker group - they would fight over its instances). Each
 * slot therefore boots a different startup script, rendered per slot at synth time, and a
 * MIG's instances all share one template. A group per slot keeps the slot -> worker group
 * mapping static (no runtime discovery or leader election), while the MIG still gives
 * autohealing and template-driven replacement.
 */
import { ComputeHealthCheck } from "@cdktf/provider-google/lib/compute-health-check";
import { ComputeInstanceGroupManager } from "@cdktf/provider-google/lib/compute-instance-group-manager";
import { ComputeInstanceTemplate, type ComputeInstanceTemplateConfig } from "@cdktf/provider-google/lib/compute-instance-template";
import { Annotations } from "cdktf";
import { Construct } from "constructs";
import { RUNNER_METRICS_PORT, SLOT_METADATA_KEY } from "../../lib/contract/fleet-contract";
import { GOOGLE_NAME_RULES } from "../../lib/names/cloud-name-rules";
import { PREVIOUS_TEMPLATE_SUFFIX } from "../../lib/roll/manager-slots";
import { checkComputeName, checkName, checkIntegerRange, checkNonEmpty, checkNotBlank, checkUnique } from "./checks";
import { bootDisk, privateInterface, SHIELDED_VM, hostMaintenancePolicy } from "./instance-template-parts";

/** One manager slot: its group (and VM base) name, zone and rendered startup script. */
export interface ManagerSlotProps {
  /** Name of the slot's managed instance group and base name of its VM. */
  readonly name: string;
  /** Zone of the slot (the same zone as the worker group it drives). */
  readonly zone: string;
  /** Name prefix of the slot's instance templates (`templateNamePrefix` in lib/model/google-names.ts). */
  readonly templateNamePrefix: string;
  /** The slot's startup script (bash). Must never contain a runner token. */
  readonly startupScript: string;
}

export interface RunnerManagerGroupProps {
  /** Project of every resource. @default - the provider's project */
  readonly project?: string;
  /** Region of the templates, used to resolve a subnetwork given by name. @default - the provider's region */
  readonly region?: string;
  /** The slots, in slot order: slot i is `slots[i]`. */
  readonly slots: readonly ManagerSlotProps[];
  /** Compute Engine machine type of the managers, for example e2-standard-2. */
  readonly machineType: string;
  /** Boot disk size in GB. @default 50 */
  readonly diskSizeGb?: number;
  /** Boot disk type. @default "pd-balanced" */
  readonly diskType?: string;
  /** Boot image or image family, such as ubuntu-os-cloud/ubuntu-2404-lts-amd64. */
  readonly image: string;
  /** Subnetwork name or self link of the managers. */
  readonly subnetwork: string;
  /** Network tags of the managers; the firewall identifies managers by them. @default [] */
  readonly networkTags?: readonly string[];
  /** The shard's dedicated manager service account (its IAM roles are granted elsewhere, e.g. FleetingIam). */
  readonly serviceAccountEmail: string;
  /** Give each manager an ephemeral external IP. @default false */
  readonly externalIp?: boolean;
  /** Labels of the templates (and so of the VMs and disks). @default {} */
  readonly labels?: Readonly<Record<string, string>>;
  /** Name of the health check that autoheals the groups. */
  readonly healthCheckName: string;
  /** Port of the runner's metrics listener, probed by the health check. @default 9252 */
  readonly metricsPort?: number;
  /**
   * Recreate a manager whose health check fails. Turn off when the token is placed on the VM by hand
   * (secrets store "local"): a recreated VM would lose it.
   * @default true
   */
  readonly autohealing?: boolean;
  /** Seconds after boot before autohealing may judge a manager (install + registration take a while). @default 600 */
  readonly autohealingInitialDelaySec?: number;
}

export class RunnerManagerGroup extends Construct {
  public readonly diskSizeGb: number;
  public readonly diskType: string;
  public readonly image: string;
  public readonly externalIp: boolean;
  public readonly metricsPort: number;
  public readonly autohealing: boolean;
  public readonly autohealingInitialDelaySec: number;
  /** The autohealing health check; absent when autohealing is off. */
  public readonly healthCheck?: ComputeHealthCheck;
  /** Instance templates, in slot order. */
  public readonly templates: ComputeInstanceTemplate[] = [];
  /** Managed instance groups, in slot order. */
  public readonly groups: ComputeInstanceGroupManager[] = [];
  /** Group names, in slot order (plain strings). */
  public readonly groupNames: readonly string[];
  /** Each slot's template settings, kept so a slot's previous template can be declared again (keepPreviousTemplate). */
  private readonly templateConfigs: ComputeInstanceTemplateConfig[] = [];

  constructor(scope: Construct, id: string, props: RunnerManagerGroupProps) {
    super(scope, id);
    this.diskSizeGb = props.diskSizeGb ?? 50;
    this.diskType = props.diskType ?? "pd-balanced";
    this.image = props.image;
    this.externalIp = props.externalIp ?? false;
    this.metricsPort = props.metricsPort ?? RUNNER_METRICS_PORT;
    this.autohealing = props.autohealing ?? true;
    this.autohealingInitialDelaySec = props.autohealingInitialDelaySec ?? 600;
    this.groupNames = props.slots.map((slot) => slot.name);
    this.checkProps(props);

    if (this.externalIp) {
      Annotations.of(this).addWarning("Runner managers get external IPs (externalIp is true); they do not need one behind Cloud NAT.");
    }

    // Probes the metrics listener over HTTP: a manager whose runner process is gone stops answering.
    const healthCheck = this.autohealing
      ? new ComputeHealthCheck(this, "HealthCheck", {
          name: props.healthCheckName,
          project: props.project,
          checkIntervalSec: 30,
          timeoutSec: 10,
          healthyThreshold: 1,
          unhealthyThreshold: 4,
          httpHealthCheck: { port: this.metricsPort, requestPath: "/metrics" },
        })
      : undefined;
    this.healthCheck = healthCheck;

    props.slots.forEach((slot, index) => {
      const config: ComputeInstanceTemplateConfig = {
        namePrefix: slot.templateNamePrefix,
        project: props.project,
        region: props.region,
        description: `GitLab runner manager slot ${index} (${slot.name}).`,
        machineType: props.machineType,
        disk: [bootDisk(this.image, this.diskSizeGb, this.diskType)],
        networkInterface: [privateInterface(props.subnetwork, { externalIp: this.externalIp })],
        tags: [...(props.networkTags ?? [])],
        labels: { ...props.labels, [SLOT_METADATA_KEY]: String(index) },
        metadata: {
          "enable-oslogin": "TRUE",
          "block-project-ssh-keys": "TRUE",
          "startup-script": slot.startupScript,
          [SLOT_METADATA_KEY]: String(index),
        },
        // cloud-platform scope: what the VM may do is decided by the account's IAM roles alone.
        serviceAccount: { email: props.serviceAccountEmail, scopes: ["cloud-platform"] },
        shieldedInstanceConfig: SHIELDED_VM,
        // Live migration where the series supports it; elsewhere (T2A, ...) a restart, which autohealing and the drain cover.
        scheduling: { automaticRestart: true, onHostMaintenance: hostMaintenancePolicy(props.machineType), provisioningModel: "STANDARD" },
        lifecycle: { createBeforeDestroy: true },
      };
      this.templateConfigs.push(config);
      const template = new ComputeInstanceTemplate(this, `Template${index}`, config);
      this.templates.push(template);

      this.groups.push(
        new ComputeInstanceGroupManager(this, `Group${index}`, {
          name: slot.name,
          project: props.project,
          zone: slot.zone,
          baseInstanceName: slot.name,
          description: `GitLab runner manager slot ${index}: exactly one VM.`,
          targetSize: 1,
          version: [{ name: "primary", instanceTemplate: template.id }],
          ...(healthCheck
            ? { autoHealingPolicies: { healthCheck: healthCheck.id, initialDelaySec: this.autohealingInitialDelaySec } }
            : {}),
          // A template change replaces nothing by itself: the manager drains gitlab-runner (SIGQUIT, up to
          // maximum_timeout) and then asks the group to recreate its VM (templates/startup/manager.sh.hbs,
          // `drain`). No surge: a second VM of the same slot would drive the same worker group as the first.
          // RECREATE keeps the instance name. Autohealing still recreates a dead VM from the new template.
          updatePolicy: {
            type: "OPPORTUNISTIC",
            minimalAction: "REPLACE",
            replacementMethod: "RECREATE",
            maxSurgeFixed: 0,
            maxUnavailableFixed: 1,
          },
          waitForInstances: false,
        }),
      );
    });
  }

  /**
   * Declares slot `index`'s previous template beside its current one, so that applying the stack does not
   * delete it: the Compute API refuses to delete a template an instance still runs from
   * (`resourceInUseByAnotherResource`; hashicorp/terraform#21865, hashicorp/terraform-provider-google#6277),
   * and the slot's VM runs from the old one until its drain ends and the group recreates it (OPPORTUNISTIC
   * above). `take` moves the template Terraform knows as the current one to this address (a `moved` block),
   * so that the current address gets a new template while the old one stays; without it, the previous
   * template already at this address is kept as it is. Either way it ignores every change (its settings here
   * are the current ones, which it must not take). A later apply that no longer declares it deletes it.
   */
  keepPreviousTemplate(index: number, how: { readonly take: boolean }): ComputeInstanceTemplate {
    const current = this.templates[index];
    const previous = new ComputeInstanceTemplate(this, `PreviousTemplate${index}`, {
      ...this.templateConfigs[index],
      lifecycle: { createBeforeDestroy: true, ignoreChanges: "all" },
    });
    previous.overrideLogicalId(`${current.friendlyUniqueId}${PREVIOUS_TEMPLATE_SUFFIX}`);
    if (how.take) previous.moveFromId(`${current.terraformResourceType}.${current.friendlyUniqueId}`);
    return previous;
  }

  private checkProps(props: RunnerManagerGroupProps): void {
    checkNonEmpty(this, "slots", props.slots, "manager slot");
    props.slots.forEach((slot, i) => {
      checkComputeName(this, `slots[${i}].name`, slot.name);
      // The name is also the base name of the group's instances ("<base>-xxxx", at most 63 characters).
      checkName(this, `slots[${i}].name`, slot.name, GOOGLE_NAME_RULES.baseInstanceName);
      checkName(this, `slots[${i}].templateNamePrefix`, slot.templateNamePrefix, GOOGLE_NAME_RULES.templateNamePrefix);
      checkNotBlank(this, `slots[${i}].zone`, slot.zone, "a zone such as europe-west4-a");
      checkNotBlank(this, `slots[${i}].startupScript`, slot.startupScript, "the slot's startup script");
    });
    checkUnique(this, "slots[].name", this.groupNames);
    checkComputeName(this, "healthCheckName", props.healthCheckName);
    checkIntegerRange(this, "diskSizeGb", this.diskSizeGb, 10, 65536);
    checkIntegerRange(this, "metricsPort", this.metricsPort, 1, 65535);
    checkIntegerRange(this, "autohealingInitialDelaySec", this.autohealingInitialDelaySec, 0, 3600);
    checkNotBlank(this, "machineType", props.machineType, "a Compute Engine machine type such as e2-standard-2");
    (props.networkTags ?? []).forEach((tag, i) => checkComputeName(this, `networkTags[${i}]`, tag));
  }
}

