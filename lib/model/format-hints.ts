/**
 * What a value should have looked like, for keys that want text in a format. Two cases:
 * - YAML read it as a number (or true/false): `idle_time: 20` wants a Go duration, `runner_version: 19.6`
 *   a full version, `account_id: 012345678901` twelve digits (YAML drops the leading zero of an
 *   unquoted number). "quote it" alone would lead to the format's error next (`"20"` is no duration),
 *   so the hint gives the value that passes: `"20m"`, `"1h"`, `"19.6.0"`.
 * - The text is close to the format: `20min`, `1d`, `v19.6.0`. The hint says "did you mean", with the
 *   value that passes, as unknown keys get one (known-keys.ts).
 * Every suggestion meets the format it is offered for (a Go duration parses, a version has three parts);
 * a key's own bounds (maximum_timeout at least 10m) are still said by their own message.
 */
import { closest, distance } from "fastest-levenshtein";
import { parseGoDurationSeconds } from "./duration";
import type { ModelPath } from "./issues";

const GO_DURATION = 'a Go duration with its unit, such as "20m", "1h30m" or "90s"';
const FULL_VERSION = /^[0-9]+\.[0-9]+\.[0-9]+$/;

/**
 * How a bare number is most likely meant, per duration key. maximum_timeout: seconds, as GitLab
 * counts it (gitlab-runner commands/register.go, --maximum-timeout: "the maximum
 * timeout (in seconds) that will be set for job"); request_timeout too (its range is 1s-10m).
 * idle_time and manager_absent_for: their defaults are "20m" and "5m", so a small number is minutes
 * (an idle time of 20 seconds is no one's intent), a large one seconds (docker-machine's IdleTime).
 */
type NumberUnit = "seconds" | "minutes-when-small";

interface KeyFormat {
  readonly format: string;
  /** The value that passes for a number YAML read; undefined when there is no sure one. */
  readonly fromNumber?: (value: number, written: string) => string | undefined;
  /** The value that passes for text close to the format; undefined when nothing is close. */
  readonly nearText?: (text: string) => string | undefined;
}

function duration(unit: NumberUnit): KeyFormat {
  return {
    format: GO_DURATION,
    fromNumber: (value) => {
      if (!Number.isFinite(value) || value <= 0) return undefined;
      const seconds = unit === "minutes-when-small" && value < 60 ? value * 60 : value;
      return shortGoDuration(seconds);
    },
    nearText: nearGoDuration,
  };
}

const FORMAT_BY_KEY: Readonly<Record<string, KeyFormat>> = {
  idle_time: duration("minutes-when-small"),
  maximum_timeout: duration("seconds"),
  request_timeout: duration("seconds"),
  manager_absent_for: duration("minutes-when-small"),
  runner_version: { format: 'a full gitlab-runner version such as "19.5.0"', fromNumber: (_value, written) => fullVersion(written), nearText: fullVersion },
  account_id: {
    format: 'the 12-digit AWS account id, leading zeros included, such as "012345678901"',
    fromNumber: (value) => (Number.isInteger(value) && value >= 0 && String(value).length <= 12 ? String(value).padStart(12, "0") : undefined),
  },
  project: { format: 'a Google Cloud project id such as "acme-runners-1"' },
};

function keyOf(path: ModelPath): string | undefined {
  return [...path].reverse().find((part): part is string => typeof part === "string");
}

/**
 * A hint for a scalar of the wrong type where a string was expected, or undefined.
 * `written` is the scalar as it stands in the file (`18.10`, which YAML reads as 18.1).
 */
export function quoteItHint(path: ModelPath, received: unknown, written = String(received)): string | undefined {
  if (typeof received !== "number" && typeof received !== "boolean") return undefined;
  const key = keyOf(path);
  const format = key === undefined ? undefined : FORMAT_BY_KEY[key];
  const passing = typeof received === "number" ? format?.fromNumber?.(received, written) : undefined;
  if (passing !== undefined) return `${format!.format}; write ${JSON.stringify(passing)}: YAML reads the unquoted ${written} as a number`;
  const quote = `quote it: "${written}"; YAML reads it as a ${typeof received}`;
  return format ? `${format.format}; ${quote}` : quote;
}

/** "did you mean ..." for text that misses its key's format closely (`20min`, `1d`, `v19.6.0`), or undefined. */
export function nearValueHint(path: ModelPath, received: unknown): string | undefined {
  if (typeof received !== "string") return undefined;
  const key = keyOf(path);
  const format = key === undefined ? undefined : FORMAT_BY_KEY[key];
  // A quoted number ("20") is the number's case: the unit is what is missing.
  const near = /^[0-9]+(\.[0-9]+)?$/.test(received) ? format?.fromNumber?.(Number(received), received) : format?.nearText?.(received);
  return near === undefined || near === received ? undefined : `did you mean ${JSON.stringify(near)}?`;
}

/** "19.6" (or "v19.6.0", "19.6") as "19.6.0"; undefined when it is not a version with one to three parts. */
function fullVersion(text: string): string | undefined {
  const match = /^\s*[vV]?([0-9]+)(?:\.([0-9]+))?(?:\.([0-9]+))?\s*$/.exec(text);
  if (!match) return undefined;
  const version = [match[1], match[2] ?? "0", match[3] ?? "0"].join(".");
  return FULL_VERSION.test(version) ? version : undefined;
}

/** Unit words people write, in Go's units. Days and weeks have none in Go: they are hours. */
const UNIT_WORDS: Readonly<Record<string, { unit: string; factor: number }>> = {
  ns: { unit: "ns", factor: 1 },
  us: { unit: "us", factor: 1 },
  ms: { unit: "ms", factor: 1 },
  s: { unit: "s", factor: 1 },
  sec: { unit: "s", factor: 1 },
  secs: { unit: "s", factor: 1 },
  second: { unit: "s", factor: 1 },
  seconds: { unit: "s", factor: 1 },
  m: { unit: "m", factor: 1 },
  min: { unit: "m", factor: 1 },
  mins: { unit: "m", factor: 1 },
  minute: { unit: "m", factor: 1 },
  minutes: { unit: "m", factor: 1 },
  h: { unit: "h", factor: 1 },
  hr: { unit: "h", factor: 1 },
  hrs: { unit: "h", factor: 1 },
  hour: { unit: "h", factor: 1 },
  hours: { unit: "h", factor: 1 },
  d: { unit: "h", factor: 24 },
  day: { unit: "h", factor: 24 },
  days: { unit: "h", factor: 24 },
  w: { unit: "h", factor: 168 },
  week: { unit: "h", factor: 168 },
  weeks: { unit: "h", factor: 168 },
};

/** `20min` as "20m", `1d` as "24h", `1h 30m` as "1h30m", `20 Minutes` as "20m"; a near unit word by edit distance. */
function nearGoDuration(text: string): string | undefined {
  const parts = [...text.trim().toLowerCase().matchAll(/([0-9]+(?:\.[0-9]+)?)\s*([a-z\u00b5]+)\s*,?\s*/g)];
  if (parts.length === 0 || parts.map((part) => part[0]).join("") !== text.trim().toLowerCase()) return undefined;
  const words = Object.keys(UNIT_WORDS);
  let result = "";
  for (const [, amount, word] of parts) {
    const known = UNIT_WORDS[word] ?? nearUnit(word, words);
    if (known === undefined) return undefined;
    const value = Number(amount) * known.factor;
    result += `${Number(value.toFixed(9))}${known.unit}`;
  }
  return parseGoDurationSeconds(result) === undefined ? undefined : result;
}

function nearUnit(word: string, words: readonly string[]): { unit: string; factor: number } | undefined {
  const best = closest(word, [...words]);
  return best.length > 2 && distance(word, best) <= Math.floor(best.length / 3) ? UNIT_WORDS[best] : undefined;
}

/** 3600 as "1h", 5400 as "1h30m", 1200 as "20m", 90 as "1m30s": the short form a person writes. */
export function shortGoDuration(totalSeconds: number): string {
  const hours = Math.floor(totalSeconds / 3600);
  const minutes = Math.floor((totalSeconds % 3600) / 60);
  const seconds = Number((totalSeconds - hours * 3600 - minutes * 60).toFixed(9));
  const text = `${hours > 0 ? `${hours}h` : ""}${minutes > 0 ? `${minutes}m` : ""}${seconds > 0 ? `${seconds}s` : ""}`;
  return text === "" ? "0s" : text;
}
