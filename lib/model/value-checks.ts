/** Checks of single values the schema refers to; each is true when the value is acceptable. */

export function isValidTimeZone(text: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: text });
    return true;
  } catch {
    return false;
  }
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
