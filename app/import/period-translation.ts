/**
 * docker+machine `[[runners.machine.autoscaling]] Periods` in the model's period dialect.
 *
 * Both go through the same parser, gorhill/cronexpr (lib/model/cronexpr.ts has the port and its
 * sources): docker+machine periods through helpers/timeperiod/period.go, the autoscaler's policy
 * periods through fleeting's taskscaler. What differs is the habit: GitLab's docker+machine
 * documentation writes seven fields, a second first and a year last ("* * 9-17 * * mon-fri *",
 * docs.gitlab.com/runner/configuration/autoscale.html, "Configure autoscaling periods"), where the
 * docker-autoscaler documentation and the model write five ("* 9-17 * * mon-fri").
 *
 * So a seven-field period whose second field is `*` becomes its five fields (six when its year is
 * restricted: cronexpr reads a sixth field as the year). A restricted second field (a period that
 * holds only some seconds of each minute) is kept as written, with a note: cronexpr reads it the
 * same, and a person should look at it. Every translation is checked: the original and the result
 * must parse, and select the same minutes, hours, days, months, days of the week and years.
 */
import { CRONEXPR_DIALECT, parseCronexpr, type CronexprSchedule } from "../../lib/model/cronexpr";

export type PeriodTranslation =
  | { readonly ok: true; readonly period: string; readonly note?: string }
  /** `reason` says what is expected, for a message's "expected ...". */
  | { readonly ok: false; readonly reason: string };

export function translateMachinePeriod(period: string): PeriodTranslation {
  const original = parseCronexpr(period);
  if (!original.ok) return { ok: false, reason: `a period in ${CRONEXPR_DIALECT} (cronexpr: ${original.reason})` };
  const fields = period.trim().split(/[\t\n\f\r ]+/);
  if (fields.length < 7 || period.includes("@")) return { ok: true, period };
  const [second, minute, hour, dayOfMonth, month, dayOfWeek, year] = fields;
  if (second !== "*" && second !== "?") {
    return { ok: true, period, note: `period "${period}" restricts the seconds of a minute (${second}); kept as written, check that it is meant` };
  }
  const translated = [minute, hour, dayOfMonth, month, dayOfWeek, ...(year === "*" || year === "?" ? [] : [year])].join(" ");
  const result = parseCronexpr(translated);
  if (!result.ok || !sameSchedule(original.schedule, result.schedule)) {
    // Cannot happen with cronexpr's rules; kept as a check so a translation never changes a schedule unseen.
    return { ok: true, period, note: `period "${period}" kept as written: its five-field form "${translated}" would select other times` };
  }
  return { ok: true, period: translated };
}

function sameSchedule(a: CronexprSchedule, b: CronexprSchedule): boolean {
  const sets = (schedule: CronexprSchedule) => [schedule.minutes, schedule.hours, schedule.months, schedule.years];
  return (
    sets(a).every((set, index) => sameSet(set, sets(b)[index])) &&
    JSON.stringify(normalise(a.daysOfMonth)) === JSON.stringify(normalise(b.daysOfMonth)) &&
    JSON.stringify(normalise(a.daysOfWeek)) === JSON.stringify(normalise(b.daysOfWeek))
  );
}

function sameSet(a: ReadonlySet<number>, b: ReadonlySet<number>): boolean {
  return a.size === b.size && [...a].every((value) => b.has(value));
}

/** Sets as sorted arrays, so two day specifications compare as data. */
function normalise(value: object): unknown {
  return Object.fromEntries(Object.entries(value).map(([name, field]) => [name, field instanceof Set ? [...field].sort() : field]));
}
