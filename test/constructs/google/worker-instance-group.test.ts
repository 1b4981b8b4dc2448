import { ComputeInstanceGroupManager } from "@cdktf/provider-google/lib/compute-instance-group-manager";
import { ComputeInstanceTemplate } from "@cdktf/provider-google/lib/compute-instance-template";
import { WorkerInstanceGroup, type WorkerInstanceGroupProps } from "../../../constructs/google/worker-instance-group";
import { UserInputError } from "../../../lib/process/errors";
import { googleTestStack, resourcesOf, resourceTypes, synth } from "./support";

const GROUPS = [
  { name: "cell-9-small-wrk-0", zone: "europe-west4-a", templateNamePrefix: "cell-9-small-wrk-0-" },
  { name: "cell-9-small-wrk-1", zone: "europe-west4-b", templateNamePrefix: "cell-9-small-wrk-1-" },
];

function workersOf(props: Partial<WorkerInstanceGroupProps> = {}) {
  const stack = googleTestStack();
  const group = new WorkerInstanceGroup(stack, "workers", {
    groups: GROUPS,
    machineType: "n2d-standard-2",
    image: "projects/ubuntu-os-cloud/global/images/family/ubuntu-2404-lts-amd64",
    subnetwork: "runners-ew4",
    networkTags: ["cell-9-small-worker"],
    startupScript: "#!/bin/bash\necho worker\n",
    ...props,
  });
  return { stack, group, json: synth(stack) };
}

describe("WorkerInstanceGroup", () => {
  test("GIVEN two slots THEN two zonal groups with distinct names start empty", () => {
    const { json } = workersOf();
    const groups = resourcesOf(json, "google_compute_instance_group_manager");
    expect(groups.map((group) => group.name)).toEqual(GROUPS.map((group) => group.name));
    GROUPS.forEach((group) => {
      expect(json).toHaveResourceWithProperties(ComputeInstanceGroupManager, { name: group.name, zone: group.zone, target_size: 0 });
    });
  });

  test("Terraform ignores the size the runner sets, and no autoscaler exists", () => {
    const { json } = workersOf();
    for (const group of resourcesOf(json, "google_compute_instance_group_manager")) {
      expect(group.lifecycle).toEqual({ ignore_changes: ["target_size"] });
      expect(group.auto_healing_policies).toBeUndefined();
    }
    expect(resourceTypes(json).filter((type) => type.includes("autoscaler"))).toEqual([]);
  });

  test("template changes never replace workers that are running jobs", () => {
    const { json } = workersOf();
    expect(json).toHaveResourceWithProperties(ComputeInstanceGroupManager, {
      update_policy: { type: "OPPORTUNISTIC", minimal_action: "REPLACE" },
    });
  });

  test("workers are Shielded VMs without external IPs, OS Login off, project SSH keys blocked", () => {
    const { json } = workersOf();
    const templates = resourcesOf(json, "google_compute_instance_template");
    expect(templates).toHaveLength(2);
    for (const template of templates) {
      expect(template.shielded_instance_config).toEqual({
        enable_secure_boot: true,
        enable_vtpm: true,
        enable_integrity_monitoring: true,
      });
      expect(template.network_interface).toEqual([{ subnetwork: "runners-ew4" }]);
      expect(template.metadata).toEqual({
        "enable-oslogin": "FALSE",
        "block-project-ssh-keys": "TRUE",
        "startup-script": "#!/bin/bash\necho worker\n",
      });
      expect(template.tags).toEqual(["cell-9-small-worker"]);
    }
  });

  test("workers have no service account by default", () => {
    const { json, group } = workersOf();
    expect(group.serviceAccountEmail).toBeUndefined();
    for (const template of resourcesOf(json, "google_compute_instance_template")) expect(template.service_account).toBeUndefined();
  });

  test("uses standard scheduling unless spot is asked for", () => {
    const { json, group } = workersOf();
    expect(group.spot).toBe(false);
    for (const template of resourcesOf(json, "google_compute_instance_template")) {
      expect(template.scheduling).toEqual(
        expect.objectContaining({ provisioning_model: "STANDARD", preemptible: false, automatic_restart: true }),
      );
      expect(template.scheduling.instance_termination_action).toBeUndefined();
    }
  });

  test("spot workers are preemptible, not restarted, terminated on maintenance and deleted when reclaimed", () => {
    const { json } = workersOf({ spot: true });
    expect(json).toHaveResourceWithProperties(ComputeInstanceTemplate, {
      scheduling: {
        provisioning_model: "SPOT",
        preemptible: true,
        automatic_restart: false,
        on_host_maintenance: "TERMINATE",
        instance_termination_action: "DELETE",
      },
    });
    for (const template of resourcesOf(json, "google_compute_instance_template")) {
      expect(template.scheduling.provisioning_model).toBe("SPOT");
    }
  });

  test("fails when there are no worker groups", () => {
    expect(() => workersOf({ groups: [] })).toThrow(UserInputError);
    expect(() => workersOf({ groups: [] })).toThrow(/groups is \[\]; expected at least one worker group/);
  });

  test("fails when two slots would share one worker group", () => {
    expect(() => workersOf({ groups: [GROUPS[0], { ...GROUPS[1], name: GROUPS[0].name }] })).toThrow(
      /"cell-9-small-wrk-0" appears more than once/,
    );
  });

  test("fails when the disk is smaller than 10 GB", () => {
    expect(() => workersOf({ diskSizeGb: 5 })).toThrow(/diskSizeGb is 5; expected an integer from 10/);
  });
});
