/**
 * Which wall-clock times a parsed cronexpr schedule selects, by the rules of cronexpr_next.go
 * (github.com/gorhill/cronexpr): a time matches when its year, month, day, hour, minute and
 * second are each in the schedule, where the days of a month are worked out as cronexpr's
 * calculateActualDaysOfMonth does:
 *
 * - neither day field restricted (`*` or `?` in both): every day of the month;
 * - otherwise the union of what the restricted fields select, as crontab(5) says ("if both
 *   fields are restricted, the command will be run when either field matches"): days of the
 *   month past its end are dropped; `L` is the last day; `15W` is the weekday nearest the 15th
 *   without leaving the month (a Saturday 1st moves to Monday 3rd, a Sunday last day back to
 *   Friday); `LW` is the weekday nearest the last day; `5L` is the last Friday; `5#3` the third
 *   Friday, when the month has one.
 *
 * Times are given as wall-clock milliseconds (whose UTC fields are the local time): time zones
 * and daylight-saving moves are the caller's business.
 */
import type { CronexprSchedule } from "./cronexpr";

const SECOND_MS = 1000;
const MINUTE_MS = 60 * SECOND_MS;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

/** Whether the schedule selects this wall-clock second (milliseconds whose UTC fields are the local time). */
export function cronexprMatchesSecond(schedule: CronexprSchedule, wallClockMs: number): boolean {
  return schedule.seconds.has(Math.floor(wallClockMs / SECOND_MS) % 60) && cronexprMatchesMinute(schedule, wallClockMs);
}

/** Whether the schedule selects any second of this wall-clock minute (its seconds are not looked at). */
export function cronexprMatchesMinute(schedule: CronexprSchedule, wallClockMs: number): boolean {
  if (schedule.seconds.size === 0) return false;
  const minuteOfDay = Math.floor((wallClockMs - Math.floor(wallClockMs / DAY_MS) * DAY_MS) / MINUTE_MS);
  if (!schedule.minutes.has(minuteOfDay % 60) || !schedule.hours.has(Math.floor(minuteOfDay / 60))) return false;
  return dayMatches(schedule, Math.floor(wallClockMs / DAY_MS));
}

/**
 * The minutes (0-59) of this wall-clock hour (milliseconds at the start of an hour, whose UTC fields are the
 * local time) that the schedule selects any second of: within one hour only the minute field varies, so
 * that is all of the schedule's minutes or none.
 */
export function cronexprMinutesOfHour(schedule: CronexprSchedule, wallClockHourMs: number): ReadonlySet<number> {
  if (schedule.seconds.size === 0) return NO_MINUTES;
  const dayNumber = Math.floor(wallClockHourMs / DAY_MS);
  if (!schedule.hours.has(Math.floor((wallClockHourMs - dayNumber * DAY_MS) / HOUR_MS))) return NO_MINUTES;
  return dayMatches(schedule, dayNumber) ? schedule.minutes : NO_MINUTES;
}

const NO_MINUTES: ReadonlySet<number> = new Set();

/** Days are worked out once per schedule and day: a week of minutes asks the same day 1,440 times. */
const dayCache = new WeakMap<CronexprSchedule, Map<number, boolean>>();

function dayMatches(schedule: CronexprSchedule, dayNumber: number): boolean {
  let byDay = dayCache.get(schedule);
  if (!byDay) {
    byDay = new Map();
    dayCache.set(schedule, byDay);
  }
  let matches = byDay.get(dayNumber);
  if (matches === undefined) {
    const date = new Date(dayNumber * DAY_MS);
    const [year, month] = [date.getUTCFullYear(), date.getUTCMonth() + 1];
    matches = schedule.years.has(year) && schedule.months.has(month) && daysOfMonth(schedule, year, month).has(date.getUTCDate());
    byDay.set(dayNumber, matches);
  }
  return matches;
}

/** cronexpr's calculateActualDaysOfMonth, for a month (1-12) of a year. */
export function daysOfMonth(schedule: CronexprSchedule, year: number, month: number): ReadonlySet<number> {
  const lastDay = new Date(Date.UTC(year, month, 0)).getUTCDate();
  const weekdayOf = (day: number) => new Date(Date.UTC(year, month - 1, day)).getUTCDay();
  const { daysOfMonth: dom, daysOfWeek: dow } = schedule;
  const days = new Set<number>();
  if (!dom.restricted && !dow.restricted) {
    for (let day = 1; day <= lastDay; day += 1) days.add(day);
    return days;
  }
  if (dom.restricted) {
    if (dom.last) days.add(lastDay);
    if (dom.lastWeekday) days.add(nearestWeekday(lastDay, weekdayOf(lastDay), lastDay));
    for (const day of dom.days) if (day <= lastDay) days.add(day);
    for (const day of dom.nearestWeekdays) if (day <= lastDay) days.add(nearestWeekday(day, weekdayOf(day), lastDay));
  }
  if (dow.restricted) {
    for (let day = 1; day <= lastDay; day += 1) {
      const weekday = weekdayOf(day);
      const nth = Math.floor((day - 1) / 7) + 1;
      if (dow.days.has(weekday)) days.add(day);
      if (dow.nthInMonth.has((nth - 1) * 7 + weekday)) days.add(day);
      if (day > lastDay - 7 && dow.lastInMonth.has(weekday)) days.add(day);
    }
  }
  return days;
}

/** cronexpr's workdayOfMonth: Saturday moves to Friday (or Monday the 3rd), Sunday to Monday (or back to Friday at the month's end). */
function nearestWeekday(day: number, weekday: number, lastDay: number): number {
  if (weekday === 6) return day > 1 ? day - 1 : day + 2;
  if (weekday === 0) return day < lastDay ? day + 1 : day - 2;
  return day;
}
