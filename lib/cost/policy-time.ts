/**
 * How much of the time each autoscaling policy is in force. gitlab-runner applies
 * the last policy whose periods match the current time (none matching: no idle
 * capacity), so a policy's share is the part of a week where it matches and no
 * later policy does. Measured minute by minute over one reference week: periods
 * are cron expressions in gitlab-runner's dialect (gorhill/cronexpr, see
 * lib/model/cronexpr.ts) read in their policy's time zone, and a week covers every weekday.
 *
 * A minute counts as in force when the period selects any second of it. gitlab-runner's
 * own check differs at the edges: helpers/timeperiod/period.go (docker+machine) asks
 * whether cronexpr's Next(now) lies within a second of now, which for a 5-field period
 * (second 0 only) holds about one second per matching minute; the docker-autoscaler's
 * check lives in fleeting's taskscaler, whose source is not at hand here. A cost estimate
 * wants the intent, the whole matching minute.
 */
import { parseCronexpr, type CronexprSchedule } from "../model/cronexpr";
import { cronexprMatchesMinute, cronexprMinutesOfHour } from "../model/cronexpr-match";
import { readsWallClocks, wallClocks } from "../time/zone-clock";

export interface PolicyPeriods {
  readonly periods: readonly string[];
  readonly timezone: string;
}

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
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
  const inForce = policies.map(minutesSelected);
  const minutes = new Array<number>(policies.length).fill(0);
  for (let minute = 0; minute < WEEK_MINUTES; minute += 1) {
    for (let index = inForce.length - 1; index >= 0; index -= 1) {
      if (inForce[index][minute] === 1) {
        minutes[index] += 1;
        break;
      }
    }
  }
  return minutes.map((count) => count / WEEK_MINUTES);
}

/**
 * The minutes of the reference week (1 where selected) that any of a policy's periods selects, read in
 * its time zone. Hour by hour: an hour that is one whole local hour (a zone offset in whole hours, not
 * changing within it) is selected by minute field alone, so each period is asked once for it; any other
 * hour (a half-hour zone, or a daylight-saving change) is asked minute by minute.
 */
function minutesSelected(policy: PolicyPeriods): Uint8Array {
  const selected = new Uint8Array(WEEK_MINUTES);
  const localTime = localClock(policy.timezone);
  const schedules = policy.periods.map(parsedPeriod);
  for (let hour = 0; hour < WEEK_MINUTES / 60; hour += 1) {
    const first = hour * 60;
    const start = REFERENCE_WEEK_START + first * MINUTE_MS;
    const last = start + 59 * MINUTE_MS;
    const local = localTime(start);
    if (local % HOUR_MS === 0 && localTime(last) - last === local - start) {
      for (const schedule of schedules) for (const minute of cronexprMinutesOfHour(schedule, local)) selected[first + minute] = 1;
      continue;
    }
    for (let minute = 0; minute < 60; minute += 1) {
      const wallClock = localTime(start + minute * MINUTE_MS);
      if (schedules.some((schedule) => cronexprMatchesMinute(schedule, wallClock))) selected[first + minute] = 1;
    }
  }
  return selected;
}

/**
 * Wall-clock time of a zone, as a UTC timestamp with the same fields. Offsets hold per quarter hour
 * (all zones' offsets and changes are whole quarters), and are read a week of hours at a time
 * through the process's local time (lib/time/zone-clock.ts), or, for a zone that cannot be read so,
 * asked of Intl one by one. That is slow (formatToParts was most of a one-cell dry run's cost
 * estimate), so the clock asks at each hour: an hour that starts and ends at the same offset has it
 * throughout (no zone changes twice within an hour), and only an hour whose ends differ is asked
 * quarter by quarter.
 */
const offsetsByZone = new Map<string, Map<number, number>>();

const QUARTER_MS = 15 * MINUTE_MS;
/** A week's hours and the next one's start: what the cost estimate asks, read with one switch of TZ. */
const HOURS_READ_AT_ONCE = WEEK_MINUTES / 60 + 1;

export function localClock(timezone: string): (utcMs: number) => number {
  let offsets = offsetsByZone.get(timezone);
  if (!offsets) {
    offsets = new Map<number, number>();
    offsetsByZone.set(timezone, offsets);
  }
  // Built here, as before, for a zone Intl is asked about: one it does not know throws now, not at the first reading.
  const format = readsWallClocks(timezone)
    ? undefined
    : new Intl.DateTimeFormat("en-US", { timeZone: timezone, hourCycle: "h23", year: "numeric", month: "numeric", day: "numeric", hour: "numeric", minute: "numeric" });
  const offsetAt = (quarter: number): number => {
    const known = offsets!.get(quarter);
    if (known !== undefined) return known;
    if (!format) {
      // From an hour's start, the starts of the week's hours ahead; within an hour, its quarters.
      const quarters = quarter % 4 === 0 ? Array.from({ length: HOURS_READ_AT_ONCE }, (_, hour) => quarter + hour * 4) : [0, 1, 2, 3].map((index) => quarter - (((quarter % 4) + 4) % 4) + index);
      const starts = quarters.map((each) => each * QUARTER_MS);
      const clocks = wallClocks(timezone, starts);
      quarters.forEach((each, index) => offsets!.set(each, clocks[index] - starts[index]));
      return offsets!.get(quarter)!;
    }
    const start = quarter * QUARTER_MS;
    const parts = Object.fromEntries(format.formatToParts(new Date(start)).map((part) => [part.type, Number(part.value)]));
    const offset = Date.UTC(parts.year, parts.month - 1, parts.day, parts.hour, parts.minute) - start;
    offsets!.set(quarter, offset);
    return offset;
  };
  return (utcMs) => {
    const quarter = Math.floor(utcMs / QUARTER_MS);
    const hourStart = quarter - (quarter % 4);
    const atStart = offsetAt(hourStart);
    return utcMs + (atStart === offsetAt(hourStart + 4) ? atStart : offsetAt(quarter));
  };
}

function parsedPeriod(period: string): CronexprSchedule {
  const parsed = parseCronexpr(period);
  // The model loader refuses periods cronexpr refuses; one reaching here is a programming error.
  if (!parsed.ok) throw new Error(`not a cronexpr period ${JSON.stringify(period)}: ${parsed.reason}`);
  return parsed.schedule;
}
