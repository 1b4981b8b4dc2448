/**
 * Carves a VPC range into equal subnets: the first `zones` for the private subnets, the next
 * `zones` for the public ones. The model's cross-checks reserve exactly this room
 * (ceil(log2(2 x zones)) extra prefix bits), so a model that loads always fits.
 */
import { Fn } from "cdktf";
import { isToken } from "./checks";

export interface SubnetRanges {
  readonly private: string[];
  readonly public: string[];
}

export function extraPrefixBits(zoneCount: number): number {
  return Math.max(1, Math.ceil(Math.log2(zoneCount * 2)));
}

export function carveSubnetRanges(vpcCidr: string, zoneCount: number): SubnetRanges {
  const newBits = extraPrefixBits(zoneCount);
  const nth = (index: number) => (isToken(vpcCidr) ? Fn.cidrsubnet(vpcCidr, newBits, index) : cidrSubnet(vpcCidr, newBits, index));
  return {
    private: Array.from({ length: zoneCount }, (_, zone) => nth(zone)),
    public: Array.from({ length: zoneCount }, (_, zone) => nth(zoneCount + zone)),
  };
}

/** Terraform's cidrsubnet() for IPv4, computed at synth time so the plan shows plain ranges. */
export function cidrSubnet(cidr: string, newBits: number, index: number): string {
  const [address, prefixText] = cidr.split("/");
  const prefix = Number(prefixText);
  const newPrefix = prefix + newBits;
  if (newPrefix > 32) throw new RangeError(`${cidr} has no room for ${newBits} more prefix bits`);
  if (index < 0 || index >= 2 ** newBits) throw new RangeError(`subnet index ${index} does not fit in ${newBits} bits`);
  const base = address.split(".").reduce((value, octet) => value * 256 + Number(octet), 0);
  const start = base + index * 2 ** (32 - newPrefix);
  const octets = [24, 16, 8, 0].map((shift) => Math.floor(start / 2 ** shift) % 256);
  return `${octets.join(".")}/${newPrefix}`;
}
