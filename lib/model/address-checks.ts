/**
 * The cell's address plan (issue 23):
 * - a created network's range outside the private ranges (RFC 1918: 10/8, 172.16/12,
 *   192.168/16; RFC 6598 shared address space: 100.64/10) is a warning: the clouds accept it,
 *   but the addresses it covers on the internet become unreachable from the fleet;
 * - a range too small for what it must hold is an error: every manager slot and each of its
 *   workers up to max_instances needs an address. Google Cloud reserves 4 addresses of each
 *   subnet range (https://cloud.google.com/vpc/docs/subnets#unusable-ip-addresses-in-every-subnet),
 *   AWS 5 of each subnet (https://docs.aws.amazon.com/vpc/latest/userguide/subnet-sizing.html); on
 *   AWS only the private subnets (half the carved ranges, constructs/aws/subnet-ranges.ts) hold them;
 * - monitoring_cidrs listed twice is an error (the security group rules would collide).
 */
import { cidrContains } from "../network/cidr";
import type { CrossCheckFinding } from "./finding";
import type { RunnerModel } from "./schema";

const PRIVATE_RANGES = ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10"];
const GOOGLE_RESERVED_PER_SUBNET = 4;
const AWS_RESERVED_PER_SUBNET = 5;

export function checkAddresses(model: RunnerModel): CrossCheckFinding[] {
  return [...privateRange(model), ...roomForInstances(model), ...duplicateMonitoringRanges(model)];
}

function privateRange(model: RunnerModel): CrossCheckFinding[] {
  const { cidr, existing } = model.network;
  if (!cidr || existing || PRIVATE_RANGES.some((range) => cidrContains(range, cidr))) return [];
  return [
    {
      severity: "warning",
      path: ["network", "cidr"],
      expected: "a private range (RFC 1918: 10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16; or RFC 6598: 100.64.0.0/10): public addresses in the cell's range become unreachable from the fleet",
      received: JSON.stringify(cidr),
    },
  ];
}

/** Addresses the shards can use at most: managers, and each manager's workers at max_instances. */
export function addressesNeeded(model: RunnerModel): number {
  return model.shards.reduce((sum, shard) => sum + shard.managers.count * (1 + shard.workers.max_instances), 0);
}

function roomForInstances(model: RunnerModel): CrossCheckFinding[] {
  const { cidr, existing } = model.network;
  if (!cidr || existing) return [];
  const prefix = Number(cidr.split("/")[1]);
  const needed = addressesNeeded(model);
  let usable: number;
  let how: string;
  if (model.cloud.provider === "google") {
    usable = 2 ** (32 - prefix) - GOOGLE_RESERVED_PER_SUBNET;
    how = `a /${prefix} holds ${usable} usable addresses (Google Cloud reserves ${GOOGLE_RESERVED_PER_SUBNET})`;
  } else {
    const zones = model.cloud.availability_zones.length;
    const bits = Math.max(1, Math.ceil(Math.log2(zones * 2)));
    if (prefix + bits > 28) return []; // cross-checks.ts refuses this range with its own message.
    const perSubnet = 2 ** (32 - prefix - bits) - AWS_RESERVED_PER_SUBNET;
    usable = perSubnet * zones;
    how = `a /${prefix} for ${zones} zone(s) gives ${zones} private /${prefix + bits} subnet(s) of ${perSubnet} usable addresses each (AWS reserves ${AWS_RESERVED_PER_SUBNET} per subnet), ${usable} in all`;
  }
  if (usable >= needed) return [];
  return [
    {
      severity: "error",
      path: ["network", "cidr"],
      expected: `a range with room for ${needed} addresses (each shard's managers.count x (1 manager + workers.max_instances)); ${how}`,
      received: JSON.stringify(cidr),
    },
  ];
}

function duplicateMonitoringRanges(model: RunnerModel): CrossCheckFinding[] {
  const seen = new Map<string, number>();
  return model.network.monitoring_cidrs.flatMap((range, index): CrossCheckFinding[] => {
    const earlier = seen.get(range);
    if (earlier === undefined) {
      seen.set(range, index);
      return [];
    }
    return [{ severity: "error", path: ["network", "monitoring_cidrs", index], expected: `each range once (monitoring_cidrs[${earlier}] has it already)`, received: JSON.stringify(range) }];
  });
}
