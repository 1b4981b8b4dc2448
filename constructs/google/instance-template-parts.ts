/** Instance template blocks shared by runner managers and workers, so both stay equally hardened. */
import type {
  ComputeInstanceTemplateDisk,
  ComputeInstanceTemplateNetworkInterface,
  ComputeInstanceTemplateShieldedInstanceConfig,
} from "@cdktf/provider-google/lib/compute-instance-template";

/** Secure boot, vTPM and integrity monitoring: the images used (Ubuntu LTS) support all three. */
export const SHIELDED_VM: ComputeInstanceTemplateShieldedInstanceConfig = {
  enableSecureBoot: true,
  enableVtpm: true,
  enableIntegrityMonitoring: true,
};

export function bootDisk(image: string, diskSizeGb: number, diskType: string): ComputeInstanceTemplateDisk {
  return { boot: true, autoDelete: true, sourceImage: image, diskSizeGb, diskType };
}

/** A NIC on the subnetwork; an access config (an ephemeral external IP) only when asked. */
export function privateInterface(subnetwork: string, { externalIp }: { readonly externalIp: boolean }): ComputeInstanceTemplateNetworkInterface {
  return {
    subnetwork,
    ...(externalIp ? { accessConfig: [{ networkTier: "PREMIUM" }] } : {}),
  };
}

/**
 * Machine series whose VMs Compute Engine live-migrates during host maintenance (on_host_maintenance MIGRATE),
 * from the machine family pages of cloud.google.com/compute/docs (general-purpose and compute-optimized
 * families, "Live migration" row) and "Live migration process during maintenance events", Limitations.
 * Left out on purpose: T2A (no live migration: Google's T2A docs), H3, Z3, A2/A3/G2 (GPUs), bare metal
 * (-metal), and series this list has not been checked for (C4A, N4A, N4D, C4D): TERMINATE is accepted by
 * every series (the VM is stopped and, with automatic restart, started again), MIGRATE fails the apply
 * where the series cannot migrate.
 */
export const LIVE_MIGRATING_SERIES: ReadonlySet<string> = new Set(["e2", "n1", "n2", "n2d", "n4", "t2d", "c2", "c2d", "c3", "c3d", "c4", "m1", "m3"]);

/** The host maintenance policy a machine type supports: MIGRATE where its series live-migrates, TERMINATE otherwise. */
export function hostMaintenancePolicy(machineType: string): "MIGRATE" | "TERMINATE" {
  const series = machineType.split("-")[0];
  if (machineType.endsWith("-metal")) return "TERMINATE";
  return LIVE_MIGRATING_SERIES.has(series) ? "MIGRATE" : "TERMINATE";
}
