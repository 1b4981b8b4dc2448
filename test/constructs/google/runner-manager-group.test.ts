import { ComputeHealthCheck } from "@cdktf/provider-google/lib/compute-health-check";
import { ComputeInstanceGroupManager } from "@cdktf/provider-google/lib/compute-instance-group-manager";
import { ComputeInstanceTemplate } from "@cdktf/provider-google/lib/compute-instance-template";
import { RunnerManagerGroup, type RunnerManagerGroupProps } from "../../../constructs/google/runner-manager-group";
import { UserInputError } from "../../../lib/process/errors";
import { SLOT_METADATA_KEY } from "../../../lib/contract/fleet-contract";
import { googleTestStack, resourcesOf, synth, warningsOf } from "./support";

const SLOTS = [
  { name: "cell-9-small-mgr-0", zone: "europe-west4-a", templateNamePrefix: "cell-9-small-mgr-0-", startupScript: "#!/bin/bash\necho slot 0\n" },
  { name: "cell-9-small-mgr-1", zone: "europe-west4-b", templateNamePrefix: "cell-9-small-mgr-1-", startupScript: "#!/bin/bash\necho slot 1\n" },
];

function managersOf(props: Partial<RunnerManagerGroupProps> = {}) {
  const stack = googleTestStack();
  const group = new RunnerManagerGroup(stack, "managers", {
    slots: SLOTS,
    machineType: "e2-standard-2",
    image: "projects/ubuntu-os-cloud/global/images/family/ubuntu-2404-lts-amd64",
    subnetwork: "runners-ew4",
    networkTags: ["cell-9-small-manager"],
    serviceAccountEmail: "rm-cell-9-small@acme-test-project.iam.gserviceaccount.com",
    labels: { "gitlab-cell": "cell-9" },
    healthCheckName: "cell-9-small-mgr-health",
    ...props,
  });
  return { stack, group, json: synth(stack) };
}

describe("RunnerManagerGroup", () => {
  test("GIVEN two slots THEN each gets its own template and a single-instance zonal group", () => {
    const { json, group } = managersOf();
    expect(resourcesOf(json, "google_compute_instance_template")).toHaveLength(2);
    expect(resourcesOf(json, "google_compute_instance_group_manager")).toHaveLength(2);
    expect(group.groupNames).toEqual(["cell-9-small-mgr-0", "cell-9-small-mgr-1"]);
    SLOTS.forEach((slot) => {
      expect(json).toHaveResourceWithProperties(ComputeInstanceGroupManager, {
        name: slot.name,
        zone: slot.zone,
        base_instance_name: slot.name,
        target_size: 1,
      });
    });
  });

  test("each slot boots its own startup script and knows its slot number from metadata", () => {
    const { json } = managersOf();
    SLOTS.forEach((slot, index) => {
      expect(json).toHaveResourceWithProperties(ComputeInstanceTemplate, {
        name_prefix: `${slot.name}-`,
        metadata: expect.objectContaining({ "startup-script": slot.startupScript, [SLOT_METADATA_KEY]: String(index) }),
      });
    });
  });

  test("templates are Shielded VMs with OS Login, blocked project SSH keys and no external IP", () => {
    const { json } = managersOf();
    for (const template of resourcesOf(json, "google_compute_instance_template")) {
      expect(template.shielded_instance_config).toEqual({
        enable_secure_boot: true,
        enable_vtpm: true,
        enable_integrity_monitoring: true,
      });
      expect(template.metadata["enable-oslogin"]).toBe("TRUE");
      expect(template.metadata["block-project-ssh-keys"]).toBe("TRUE");
      expect(template.network_interface).toEqual([{ subnetwork: "runners-ew4" }]);
      expect(template.tags).toEqual(["cell-9-small-manager"]);
    }
  });

  test("runs as the given service account with the cloud-platform scope and labels the slot", () => {
    const { json } = managersOf();
    expect(json).toHaveResourceWithProperties(ComputeInstanceTemplate, {
      service_account: {
        email: "rm-cell-9-small@acme-test-project.iam.gserviceaccount.com",
        scopes: ["cloud-platform"],
      },
      labels: { "gitlab-cell": "cell-9", [SLOT_METADATA_KEY]: "1" },
    });
  });

  test("gives managers an external IP only when asked, with a warning", () => {
    const { json, stack } = managersOf({ externalIp: true });
    for (const template of resourcesOf(json, "google_compute_instance_template")) {
      expect(template.network_interface[0].access_config).toEqual([{ network_tier: "PREMIUM" }]);
    }
    expect(warningsOf(stack).join("\n")).toMatch(/external IPs/);
  });

  test("autoheals through an HTTP health check on the metrics port", () => {
    const { json } = managersOf();
    expect(json).toHaveResourceWithProperties(ComputeHealthCheck, {
      name: "cell-9-small-mgr-health",
      http_health_check: { port: 9252, request_path: "/metrics" },
    });
    for (const group of resourcesOf(json, "google_compute_instance_group_manager")) {
      expect(group.auto_healing_policies).toEqual({
        health_check: expect.stringMatching(/^\$\{google_compute_health_check\..+\.id\}$/),
        initial_delay_sec: 600,
      });
    }
  });

  test("leaves the replacement to the drained manager (opportunistic), never running two managers of one slot", () => {
    const { json } = managersOf();
    for (const group of resourcesOf(json, "google_compute_instance_group_manager")) {
      expect(group.update_policy).toEqual({
        type: "OPPORTUNISTIC",
        minimal_action: "REPLACE",
        replacement_method: "RECREATE",
        max_surge_fixed: 0,
        max_unavailable_fixed: 1,
      });
    }
    for (const template of resourcesOf(json, "google_compute_instance_template")) {
      expect(template.lifecycle).toEqual({ create_before_destroy: true });
    }
  });

  test("without autohealing there is no health check and no autohealing policy", () => {
    const { json, group } = managersOf({ autohealing: false });
    expect(group.healthCheck).toBeUndefined();
    expect(resourcesOf(json, "google_compute_health_check")).toHaveLength(0);
    for (const mig of resourcesOf(json, "google_compute_instance_group_manager")) expect(mig.auto_healing_policies).toBeUndefined();
  });

  test("exposes its effective defaults", () => {
    const { group } = managersOf();
    expect(group.diskSizeGb).toBe(50);
    expect(group.externalIp).toBe(false);
    expect(group.metricsPort).toBe(9252);
  });

  test("fails when a template name prefix is longer than Google keeps collision-free", () => {
    const prefix = `${"a".repeat(40)}-`;
    expect(() => managersOf({ slots: [{ ...SLOTS[0], templateNamePrefix: prefix }] })).toThrow(UserInputError);
    expect(() => managersOf({ slots: [{ ...SLOTS[0], templateNamePrefix: prefix }] })).toThrow(/slots\[0\]\.templateNamePrefix is "a{40}-"/);
  });

  test("fails when there are no slots", () => {
    expect(() => managersOf({ slots: [] })).toThrow(UserInputError);
    expect(() => managersOf({ slots: [] })).toThrow(/slots is \[\]; expected at least one manager slot/);
  });

  test("fails when two slots share a group name", () => {
    expect(() => managersOf({ slots: [SLOTS[0], { ...SLOTS[1], name: SLOTS[0].name }] })).toThrow(
      /appears more than once/,
    );
  });

  test("fails when a slot name is not a Compute Engine name", () => {
    expect(() => managersOf({ slots: [{ ...SLOTS[0], name: "Slot_0" }] })).toThrow(/slots\[0\]\.name is "Slot_0"/);
  });

  test("fails when a slot has an empty startup script", () => {
    expect(() => managersOf({ slots: [{ ...SLOTS[0], startupScript: "  " }] })).toThrow(/slots\[0\]\.startupScript/);
  });
});
