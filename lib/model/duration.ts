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

const GO_DURATION = /^([0-9]*(\.[0-9]*)?(ns|us|µs|ms|s|m|h))+$/;
const GO_DURATION_PART = /([0-9]*(?:\.[0-9]*)?)(ns|us|µs|ms|s|m|h)/g;

/** Seconds in a Go duration string such as "20m", "1h30m" or "90s"; undefined when it does not parse. */
export function parseGoDurationSeconds(text: string): number | undefined {
  if (text === "0") return 0;
  if (!GO_DURATION.test(text)) return undefined;
  let nanos = 0;
  for (const [, amount, unit] of text.matchAll(GO_DURATION_PART)) {
    if (amount === "" || amount === ".") return undefined;
    nanos += Number(amount) * UNIT_NANOS[unit];
  }
  return nanos / 1e9;
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
