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
