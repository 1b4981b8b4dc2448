/**
 * `a.localeCompare(b)` (its sign), without ICU where that is sure to give the same: the first
 * localeCompare of a process builds ICU's collator and checks every locale it holds data for
 * (about 70 million instructions), and a dry run sorts only
 * resource addresses and shard names, printable ASCII, with it.
 *
 * For printable ASCII, the root collation (English's, and C's and POSIX's, which V8 reads as en-US)
 * orders by each character's place in ROOT_ORDER (a letter's case aside) over the whole strings, a
 * shorter string first when it is a prefix, then, between strings differing only in case, by the first
 * such character, lowercase first. Any other text, or a default locale that may not be English (ICU
 * takes it from LC_ALL, LC_MESSAGES or LANG), is left to localeCompare.
 */
const ROOT_ORDER = " _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$0123456789aAbBcCdDeEfFgGhHiIjJkKlLmMnNoOpPqQrRsStTuUvVwWxXyYzZ";

/** Each printable ASCII character's primary weight (upper and lower case alike). */
const PRIMARY = (() => {
  const weights = new Array<number>(128).fill(-1);
  let weight = 0;
  for (const char of ROOT_ORDER) {
    const code = char.charCodeAt(0);
    const isUpper = code >= 0x41 && code <= 0x5a;
    weights[code] = isUpper ? weights[code + 0x20] : weight++;
  }
  return weights;
})();

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

let englishDefault: boolean | undefined;

/** -1, 0 or 1, as `a.localeCompare(b)` orders them under the process's default locale. */
export function compareLikeLocale(a: string, b: string): number {
  englishDefault ??= ["LC_ALL", "LC_MESSAGES", "LC_COLLATE", "LANG", "LANGUAGE"].every((name) => {
    const value = process.env[name];
    return value === undefined || value === "" || /^(C|POSIX|en)([_.@:]|$)/.test(value);
  });
  if (!englishDefault || !PRINTABLE_ASCII.test(a) || !PRINTABLE_ASCII.test(b)) return Math.sign(a.localeCompare(b));
  const shorter = Math.min(a.length, b.length);
  for (let index = 0; index < shorter; index += 1) {
    const difference = PRIMARY[a.charCodeAt(index)] - PRIMARY[b.charCodeAt(index)];
    if (difference !== 0) return Math.sign(difference);
  }
  if (a.length !== b.length) return Math.sign(a.length - b.length);
  for (let index = 0; index < a.length; index += 1) {
    // Same letters, so a difference here is case: lowercase (the higher code) first.
    if (a[index] !== b[index]) return a.charCodeAt(index) > b.charCodeAt(index) ? -1 : 1;
  }
  return 0;
}
