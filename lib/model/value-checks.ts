/** Checks of single values the schema refers to; each is true when the value is acceptable. */
import { closest, distance } from "fastest-levenshtein";
import { isListedZone } from "../time/zone-clock";

/**
 * Asked once per zone, and of Intl.DateTimeFormat only for a zone Intl does not list: building one is
 * slow (the first of a process most of all: lib/time/zone-clock.ts), and every policy of every shard names a zone.
 */
const timeZoneValidity = new Map<string, boolean>();

export function isValidTimeZone(text: string): boolean {
  if (isListedZone(text)) return true;
  let valid = timeZoneValidity.get(text);
  if (valid === undefined) {
    try {
      new Intl.DateTimeFormat("en-US", { timeZone: text });
      valid = true;
    } catch {
      valid = false;
    }
    timeZoneValidity.set(text, valid);
  }
  return valid;
}

/** True when a URL carries a user name or password (https://user:pass@host), which must never reach a file. */
export function hasUserInfo(text: string): boolean {
  try {
    const url = new URL(text);
    return url.username !== "" || url.password !== "";
  } catch {
    return /\/\/[^/@]*@/.test(text);
  }
}

/** The IANA zone nearest to a misspelt one ("America/NewYork" -> "America/New_York"), or undefined. */
export function closestTimeZone(text: string): string | undefined {
  const zones = [...Intl.supportedValuesOf("timeZone"), "UTC"];
  const folded = (zone: string) => zone.toLowerCase().replace(/[^a-z0-9/]/g, "");
  const exact = zones.find((zone) => folded(zone) === folded(text));
  if (exact) return exact;
  const nearest = closest(text, zones);
  return distance(text, nearest) <= Math.max(2, Math.floor(nearest.length / 5)) ? nearest : undefined;
}
