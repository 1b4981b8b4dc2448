/**
 * vCPUs and memory of a machine type, where its name says them by a documented rule. Used to split a worker
 * between the jobs it runs at once (capacity_per_instance > 1). A type no rule covers returns undefined: the
 * model then has to state per-job limits itself.
 *
 * - Google Cloud predefined types, `<series>-<standard|highmem|highcpu>-<vCPUs>` ("Machine families resource
 *   and comparison guide"): standard 4 GB per vCPU, highmem 8 GB, highcpu 1 GB for the general-purpose
 *   series E2, N2, N2D and the same ratios for standard/highmem of T2D, T2A, N4, C3, C3D, C4A. Shared-core
 *   types (e2-micro, e2-small, e2-medium) and the series whose ratios differ (N1's 3.75 GB, C4's 3.75 GB,
 *   C3's highcpu 2 GB) are left out rather than guessed.
 * - AWS current-generation m, c and r families, 5th generation on (m5, m6i, m7g, c7gn, r8g, ...): `large` is
 *   2 vCPUs, `xlarge` 4 and `<n>xlarge` 4n; memory is 4 GiB per vCPU (m), 2 (c) or 8 (r) ("Amazon EC2
 *   instance types: specifications"). Burstable (t3, t4g), flex and metal types are left out.
 */
import type { CloudConfig } from "./schema";

export interface MachineShape {
  readonly vcpus: number;
  readonly memoryMiB: number;
}

const GIB = 1024;
const GOOGLE_TYPE = /^([a-z0-9]+)-(standard|highmem|highcpu)-(\d+)$/;
const GOOGLE_GIB_PER_VCPU: Record<string, Partial<Record<"standard" | "highmem" | "highcpu", number>>> = {
  e2: { standard: 4, highmem: 8, highcpu: 1 },
  n2: { standard: 4, highmem: 8, highcpu: 1 },
  n2d: { standard: 4, highmem: 8, highcpu: 1 },
  t2d: { standard: 4 },
  t2a: { standard: 4 },
  n4: { standard: 4, highmem: 8 },
  c3: { standard: 4, highmem: 8 },
  c3d: { standard: 4, highmem: 8 },
  c4a: { standard: 4, highmem: 8 },
};
const AWS_TYPE = /^([mcr])([5-8])([a-z]*)\.(\d*)(large|xlarge)$/;
const AWS_GIB_PER_VCPU = { m: 4, c: 2, r: 8 } as const;

export function machineShape(provider: CloudConfig["provider"], machineType: string): MachineShape | undefined {
  if (provider === "google") {
    const match = GOOGLE_TYPE.exec(machineType);
    if (!match) return undefined;
    const perVcpu = GOOGLE_GIB_PER_VCPU[match[1]]?.[match[2] as "standard" | "highmem" | "highcpu"];
    const vcpus = Number(match[3]);
    return perVcpu === undefined || vcpus < 2 ? undefined : { vcpus, memoryMiB: vcpus * perVcpu * GIB };
  }
  const match = AWS_TYPE.exec(machineType);
  if (!match || match[3].includes("flex")) return undefined;
  const [, family, , , multiple, size] = match;
  if (size === "large" && multiple !== "") return undefined;
  const vcpus = size === "large" ? 2 : 4 * (multiple === "" ? 1 : Number(multiple));
  return { vcpus, memoryMiB: vcpus * AWS_GIB_PER_VCPU[family as "m" | "c" | "r"] * GIB };
}
