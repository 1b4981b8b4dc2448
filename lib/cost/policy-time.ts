/**
 * How much of the time each autoscaling policy is in force. gitlab-runner applies
 * the last policy whose periods match the current time (none matching: no idle
 * capacity), so a policy's share is the part of a week where it matches and no
 * later policy does. Measured minute by minute over one reference week: periods
 * are cron expressions in their own time zone, and a week covers every weekday.
 *
 * cron-parser's `includesDate` converts time zones on every call (about 35 µs), too
 * slow for the 10,080 minutes of a week times every period. A cron match is "minute
 * matches" and "hour and day match", so the hour-and-day part is asked once per
 * local hour (cached) and the minute part is a set lookup.
 */
import { CronExpressionParser } from "cron-parser";

export interface PolicyPeriods {
  readonly periods: readonly string[];
  readonly timezone: string;
}

const MINUTE_MS = 60_000;
const WEEK_MINUTES = 7 * 24 * 60;
/** Monday 2024-01-08 00:00 UTC: an ordinary week, no daylight-saving change in Europe or North America. */
const REFERENCE_WEEK_START = Date.UTC(2024, 0, 8);

/** Shards (and cells) often repeat the same policies: the reference week is fixed, so answers are kept. */
const sharesCache = new Map<string, number[]>();

/** Share of the week (0 to 1) during which each policy is the one in force, in the policies' order. */
export function policyShares(policies: readonly PolicyPeriods[]): number[] {
  const key = JSON.stringify(policies.map((policy) => [policy.periods, policy.timezone]));
  const cached = sharesCache.get(key);
  if (cached) return [...cached];
  const shares = measureShares(policies);
  sharesCache.set(key, shares);
  return [...shares];
}

function measureShares(policies: readonly PolicyPeriods[]): number[] {
  const matchers = policies.map((policy) => {
    const localTime = localClock(policy.timezone);
    const periods = policy.periods.map(periodMatcher);
    return (utcMs: number) => {
      const local = localTime(utcMs);
      return periods.some((matches) => matches(local));
    };
  });
  const minutes = new Array<number>(policies.length).fill(0);
  for (let minute = 0; minute < WEEK_MINUTES; minute += 1) {
    const at = REFERENCE_WEEK_START + minute * MINUTE_MS;
    for (let index = matchers.length - 1; index >= 0; index -= 1) {
      if (matchers[index](at)) {
        minutes[index] += 1;
        break;
      }
    }
  }
  return minutes.map((count) => count / WEEK_MINUTES);
}

/** Wall-clock time of a zone, as a UTC timestamp with the same fields. Offsets are looked up per quarter hour (all zones' offsets are whole quarters). */
const offsetsByZone = new Map<string, Map<number, number>>();

function localClock(timezone: string): (utcMs: number) => number {
  const format = new Intl.DateTimeFormat("en-US", { timeZone: timezone, hourCycle: "h23", year: "numeric", month: "numeric", day: "numeric", hour: "numeric", minute: "numeric" });
  let offsets = offsetsByZone.get(timezone);
  if (!offsets) {
    offsets = new Map<number, number>();
    offsetsByZone.set(timezone, offsets);
  }
  return (utcMs) => {
    const quarter = Math.floor(utcMs / (15 * MINUTE_MS));
    let offset = offsets!.get(quarter);
    if (offset === undefined) {
      const start = quarter * 15 * MINUTE_MS;
      const parts = Object.fromEntries(format.formatToParts(new Date(start)).map((part) => [part.type, Number(part.value)]));
      offset = Date.UTC(parts.year, parts.month - 1, parts.day, parts.hour, parts.minute) - start;
      offsets!.set(quarter, offset);
    }
    return utcMs + offset;
  };
}

/** Whether a period matches a wall-clock minute (given as a UTC timestamp with the local fields). */
function periodMatcher(period: string): (localMs: number) => boolean {
  const fields = period.trim().split(/\s+/);
  if (fields.length < 5 || period.trim().startsWith("@")) {
    // Rare shapes (@daily, ...): ask cron-parser minute by minute.
    const expression = CronExpressionParser.parse(period, { tz: "UTC" });
    return (localMs) => expression.includesDate(new Date(localMs));
  }
  // "[seconds] minute hour day-of-month month day-of-week": seconds do not change which minutes match.
  const [minute, ...hourAndDay] = fields.slice(fields.length - 5);
  const minutes = new Set(CronExpressionParser.parse(`${minute} * * * *`, { tz: "UTC" }).fields.minute.values as number[]);
  const hourDay = CronExpressionParser.parse(`* ${hourAndDay.join(" ")}`, { tz: "UTC" });
  const hours = new Map<number, boolean>();
  return (localMs) => {
    if (!minutes.has(new Date(localMs).getUTCMinutes())) return false;
    const hour = Math.floor(localMs / (60 * MINUTE_MS));
    let matches = hours.get(hour);
    if (matches === undefined) {
      matches = hourDay.includesDate(new Date(hour * 60 * MINUTE_MS));
      hours.set(hour, matches);
    }
    return matches;
  };
}
