/** IPv4 CIDR blocks as the clouds accept them. */
import ipaddr from "ipaddr.js";

/**
 * Dotted-decimal octets without leading zeros and a prefix: "010.020.0.0/20" is refused, since
 * parsers disagree on it (octal for some, decimal for others) and the clouds reject it.
 */
const STRICT_CIDR = /^((25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])\.){3}(25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])\/(3[0-2]|[12]?[0-9])$/;

export function isValidCidr(text: string): boolean {
  if (!STRICT_CIDR.test(text) || !ipaddr.IPv4.isValidCIDR(text)) return false;
  const [address, prefix] = ipaddr.IPv4.parseCIDR(text);
  // Reject host bits ("10.0.0.1/16"): clouds refuse such ranges.
  return ipaddr.IPv4.networkAddressFromCIDR(text).toString() === address.toString() && prefix >= 0;
}

/** True when `inner` lies entirely inside `outer` (both valid CIDRs). */
export function cidrContains(outer: string, inner: string): boolean {
  const [innerAddress, innerPrefix] = ipaddr.IPv4.parseCIDR(inner);
  const [, outerPrefix] = ipaddr.IPv4.parseCIDR(outer);
  return innerPrefix >= outerPrefix && innerAddress.match(ipaddr.IPv4.parseCIDR(outer));
}

/** True when two valid CIDR blocks share an address: blocks either nest or are disjoint, so one holds the other. */
export function cidrsOverlap(first: string, second: string): boolean {
  return cidrContains(first, second) || cidrContains(second, first);
}
