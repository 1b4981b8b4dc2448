/**
 * Go `time.ParseDuration` compatible parsing, because gitlab-runner reads
 * `idle_time` with Go and the model should accept exactly what the runner accepts.
 */
const UNIT_NANOS: Record<string, number> = {
  ns: 1,
  us: 1e3,
  "µs": 1e3,
  ms: 1e6,
  s: 1e9,
  m: 60e9,
  h: 3600e9,
};

// µ written \u00b5: a regular expression keeps its characters as written, and the command bundles stay ASCII (bin/load-command.js).
const GO_DURATION = /^([0-9]*(\.[0-9]*)?(ns|us|\u00b5s|ms|s|m|h))+$/;
const GO_DURATION_PART = /([0-9]*(?:\.[0-9]*)?)(ns|us|\u00b5s|ms|s|m|h)/g;

/**
 * Go durations are int64 nanoseconds: time.ParseDuration refuses anything above
 * 2^63-1 ns (2562047h47m16.854775807s) with "invalid duration", and so does the runner.
 */
export const MAX_GO_DURATION_NANOS = 2n ** 63n - 1n;

/** Seconds in a Go duration string such as "20m", "1h30m" or "90s"; undefined when Go would not parse it. */
export function parseGoDurationSeconds(text: string): number | undefined {
  const nanos = parseGoDurationNanos(text);
  return nanos === undefined ? undefined : Number(nanos) / 1e9;
}

/** Exact nanoseconds, in integers as Go counts them (fractions below a nanosecond dropped). */
function parseGoDurationNanos(text: string): bigint | undefined {
  if (text === "0") return 0n;
  if (!GO_DURATION.test(text)) return undefined;
  let nanos = 0n;
  for (const [, amount, unit] of text.matchAll(GO_DURATION_PART)) {
    if (amount === "" || amount === ".") return undefined;
    const [whole, fraction = ""] = amount.split(".");
    const unitNanos = BigInt(UNIT_NANOS[unit]);
    const digits = fraction.replace(/0+$/, "");
    nanos += BigInt(whole || "0") * unitNanos + (digits === "" ? 0n : (BigInt(digits) * unitNanos) / 10n ** BigInt(digits.length));
    if (nanos > MAX_GO_DURATION_NANOS) return undefined;
  }
  return nanos;
}

/** The canonical Go rendering ("20m0s", "1h0m0s") that gitlab-runner itself prints. */
export function formatGoDuration(totalSeconds: number): string {
  if (totalSeconds === 0) return "0s";
  const hours = Math.floor(totalSeconds / 3600);
  const minutes = Math.floor((totalSeconds % 3600) / 60);
  const seconds = totalSeconds - hours * 3600 - minutes * 60;
  const secondsText = `${Number(seconds.toFixed(9))}s`;
  if (hours > 0) return `${hours}h${minutes}m${secondsText}`;
  if (minutes > 0) return `${minutes}m${secondsText}`;
  return secondsText;
}
