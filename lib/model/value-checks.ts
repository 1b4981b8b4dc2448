/** Checks of single values the schema refers to; each is true when the value is acceptable. */

/** Asked once per zone: building an Intl.DateTimeFormat is slow, and every policy of every shard names a zone. */
const timeZoneValidity = new Map<string, boolean>();

export function isValidTimeZone(text: string): boolean {
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
