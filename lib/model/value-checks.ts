/** Checks of single values the schema refers to; each is true when the value is acceptable. */
import { CronExpressionParser } from "cron-parser";
import ipaddr from "ipaddr.js";

export function isValidCidr(text: string): boolean {
  if (!ipaddr.IPv4.isValidCIDR(text)) return false;
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

/** gitlab-runner accepts 5-field cron (and an optional leading seconds field). */
export function isValidCron(text: string): boolean {
  const fields = text.trim().split(/\s+/);
  if (fields.length < 5 || fields.length > 6) return false;
  try {
    CronExpressionParser.parse(text);
    return true;
  } catch {
    return false;
  }
}

export function isValidTimeZone(text: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: text });
    return true;
  } catch {
    return false;
  }
}
