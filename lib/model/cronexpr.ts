/**
 * Autoscaling periods in gitlab-runner's own cron dialect: github.com/gorhill/cronexpr.
 *
 * gitlab-runner's go.mod pins github.com/gorhill/cronexpr v0.0.0-20160318121724-f0984319b442 and
 * lists no other cron library among its (direct and indirect) modules. Its docker+machine
 * periods go through helpers/timeperiod/period.go, which calls cronexpr.Parse on each; the
 * docker-autoscaler hands `[[runners.autoscaler.policy]] periods` to fleeting's taskscaler
 * (ConfigureSchedule), built into the same binary, so with that same cronexpr (taskscaler's own
 * source was not at hand). This file ports cronexpr_parse.go's Parse to TypeScript, rule for
 * rule, so the model accepts and refuses what gitlab-runner does:
 *
 * - `@yearly`, `@annually`, `@monthly`, `@weekly`, `@daily`, `@hourly` are replaced by their
 *   7-field forms wherever they appear, case-sensitively (cronexpr's strings.NewReplacer); there
 *   is no `@minutely` or `@reboot`.
 * - Fields are runs of characters other than tab, newline, form feed, carriage return and space
 *   (Go's `\S`). Fewer than 5 fields is an error, more than 7 are ignored. 5 fields: minute hour
 *   day-of-month month day-of-week. 6 fields: the same plus a YEAR (not seconds, unlike most
 *   6-field crons). 7 fields: second first, year last.
 * - A field is a comma-separated list; empty items are skipped (`1,,2` is `1,2`), a field of
 *   commas only has no directive. Each item is matched case-insensitively against, in order:
 *   `*` or `?`; a value; `a-b`; `*` with a step `/n`; `a/n` (a to the field's maximum); `a-b/n`. A step is
 *   read through cronexpr's number table (0-59, 00-09, 1970-2099; anything else counts as 0) and
 *   must be 1 to the field's maximum. A range whose start is after its end selects nothing and
 *   is not an error.
 * - Values: second and minute `0?[0-9]|[1-5][0-9]`, hour `0?[0-9]|1[0-9]|2[0-3]`, day-of-month
 *   `0?[1-9]|[12][0-9]|3[01]`, month 1-12 or jan..dec / january..december, day-of-week 0-7
 *   (7 is Sunday) or sun..sat / sunday..saturday, year 1970-2099.
 * - Day-of-month also takes `L` (last day), `LW` (last weekday) and `<day>W` (nearest weekday);
 *   day-of-week also takes `<day>L` (last such day of the month) and `<day>#<1-5>` (n-th).
 * - In the second, minute, hour, month and year fields a `*` item ends the list: items after it
 *   are not looked at unless one of them is a bad step (`*,x` is accepted, `*,5/0` is not).
 *   Day-of-month and day-of-week check every item.
 *
 * Values are read through cronexpr's token tables, as they stood at the pinned version (the copy
 * vendored into hashicorp/vault from that era reads the same): those tables have no `01`..`09`
 * for months and days of the week, so a month written `01`..`09` reads as 0 (no month: it never
 * matches) and a day of the week written `00`..`07` reads as 0 (Sunday). Upstream added those
 * tokens later (88b0669, 2018), which gitlab-runner does not use.
 *
 * Where this port differs from cronexpr: the error texts name the expected dialect in addition
 * to cronexpr's own message; Go's strings.ToLower and JavaScript's toLowerCase could differ on
 * exotic Unicode, which no accepted token contains either way.
 */

/** What cronexpr keeps of an expression: the values each field selects. */
export interface CronexprSchedule {
  readonly seconds: ReadonlySet<number>;
  readonly minutes: ReadonlySet<number>;
  readonly hours: ReadonlySet<number>;
  readonly daysOfMonth: DaysOfMonth;
  readonly months: ReadonlySet<number>;
  readonly daysOfWeek: DaysOfWeek;
  readonly years: ReadonlySet<number>;
}

export interface DaysOfMonth {
  /** False when the field holds a `*` or `?`: then the day is decided by the day-of-week field alone (or any day). */
  readonly restricted: boolean;
  readonly days: ReadonlySet<number>;
  /** `15W`: the weekday nearest the 15th, within the month. */
  readonly nearestWeekdays: ReadonlySet<number>;
  readonly last: boolean;
  readonly lastWeekday: boolean;
}

export interface DaysOfWeek {
  /** False when the field holds a `*` or `?`. */
  readonly restricted: boolean;
  /** 0 (Sunday) to 6. */
  readonly days: ReadonlySet<number>;
  /** `5L`: the last Friday of the month. */
  readonly lastInMonth: ReadonlySet<number>;
  /** `5#3`: the third Friday, kept as cronexpr does: (n - 1) * 7 + day. */
  readonly nthInMonth: ReadonlySet<number>;
}

export type CronexprParse = { readonly ok: true; readonly schedule: CronexprSchedule } | { readonly ok: false; readonly reason: string };

/** A short name of the dialect, for messages. */
export const CRONEXPR_DIALECT =
  "gitlab-runner's cron dialect (gorhill/cronexpr): minute hour day-of-month month day-of-week, then an optional year (6 fields), or a second before and a year after (7 fields); or @hourly, @daily, @weekly, @monthly, @yearly";

const NUMBER_TOKENS: ReadonlyMap<string, number> = new Map([
  ...Array.from({ length: 60 }, (_, value) => [String(value), value] as const),
  ...Array.from({ length: 10 }, (_, value) => [`0${value}`, value] as const),
  ...Array.from({ length: 130 }, (_, index) => [String(1970 + index), 1970 + index] as const),
]);

const MONTH_NAMES = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
const MONTH_LONG_NAMES = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"];
const MONTH_TOKENS: ReadonlyMap<string, number> = new Map(
  MONTH_NAMES.flatMap((name, index) => [[String(index + 1), index + 1], [name, index + 1], [MONTH_LONG_NAMES[index], index + 1]] as [string, number][]),
);
const DAY_NAMES = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"];
const DAY_LONG_NAMES = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"];
const DAY_TOKENS: ReadonlyMap<string, number> = new Map([
  ...DAY_NAMES.flatMap((name, index) => [[String(index), index], [name, index], [DAY_LONG_NAMES[index], index]] as [string, number][]),
  ["7", 0],
]);

/** A token missing from a table reads as 0, as a missing key of a Go map does. */
function lookup(table: ReadonlyMap<string, number>, token: string): number {
  return table.get(token) ?? 0;
}

interface FieldRule {
  readonly name: string;
  readonly min: number;
  readonly max: number;
  /** cronexpr's valuePattern, an alternation used inside anchored layouts. */
  readonly value: string;
  readonly read: (token: string) => number;
}

const readNumber = (token: string) => lookup(NUMBER_TOKENS, token);

const SECOND: FieldRule = { name: "second", min: 0, max: 59, value: "0?[0-9]|[1-5][0-9]", read: readNumber };
const MINUTE: FieldRule = { name: "minute", min: 0, max: 59, value: "0?[0-9]|[1-5][0-9]", read: readNumber };
const HOUR: FieldRule = { name: "hour", min: 0, max: 23, value: "0?[0-9]|1[0-9]|2[0-3]", read: readNumber };
const DAY_OF_MONTH: FieldRule = { name: "day-of-month", min: 1, max: 31, value: "0?[1-9]|[12][0-9]|3[01]", read: readNumber };
const MONTH: FieldRule = {
  name: "month",
  min: 1,
  max: 12,
  value: `0?[1-9]|1[012]|${MONTH_NAMES.join("|")}|${MONTH_LONG_NAMES.join("|")}`,
  read: (token) => lookup(MONTH_TOKENS, token),
};
const DAY_OF_WEEK: FieldRule = {
  name: "day-of-week",
  min: 0,
  max: 6,
  value: `0?[0-7]|${DAY_NAMES.join("|")}|${DAY_LONG_NAMES.join("|")}`,
  read: (token) => lookup(DAY_TOKENS, token),
};
const YEAR: FieldRule = { name: "year", min: 1970, max: 2099, value: "19[789][0-9]|20[0-9]{2}", read: readNumber };

/** cronexpr's layouts, `V` standing for the field's value pattern. */
const LAYOUTS = {
  wildcard: "^\\*$|^\\?$",
  value: "^(V)$",
  range: "^(V)-(V)$",
  wildcardStep: "^\\*/(\\d+)$",
  valueStep: "^(V)/(\\d+)$",
  rangeStep: "^(V)-(V)/(\\d+)$",
  lastDayOfMonth: "^l$",
  nearestWeekday: "^(V)w$",
  lastWeekdayOfMonth: "^lw$",
  lastDayOfWeekInMonth: "^(V)l$",
  nthDayOfWeekInMonth: "^(V)#([1-5])$",
} as const;

const compiled = new Map<string, RegExp>();
function layout(name: keyof typeof LAYOUTS, rule: FieldRule): RegExp {
  const source = LAYOUTS[name].replaceAll("V", rule.value);
  let pattern = compiled.get(source);
  if (!pattern) {
    pattern = new RegExp(source);
    compiled.set(source, pattern);
  }
  return pattern;
}

type Directive =
  | { readonly kind: "all"; readonly text: string }
  | { readonly kind: "one"; readonly text: string; readonly value: number }
  | { readonly kind: "span"; readonly text: string; readonly first: number; readonly last: number; readonly step: number }
  | { readonly kind: "other"; readonly text: string };

class CronexprError extends Error {}

/** cronexpr's genericFieldParse: every item of a field, or the first bad step. */
function parseItems(field: string, rule: FieldRule): Directive[] {
  const items = field.split(",").filter((item) => item !== "");
  if (items.length === 0) throw new CronexprError(`${rule.name} field: missing directive`);
  return items.map((text): Directive => {
    const token = text.toLowerCase();
    if (layout("wildcard", rule).test(token)) return { kind: "all", text };
    if (layout("value", rule).test(token)) return { kind: "one", text, value: rule.read(token) };
    const range = layout("range", rule).exec(token);
    if (range) return { kind: "span", text, first: rule.read(range[1]), last: rule.read(range[2]), step: 1 };
    const wildcardStep = layout("wildcardStep", rule).exec(token);
    if (wildcardStep) return { kind: "span", text, first: rule.min, last: rule.max, step: step(wildcardStep[1], token, rule) };
    const valueStep = layout("valueStep", rule).exec(token);
    if (valueStep) return { kind: "span", text, first: rule.read(valueStep[1]), last: rule.max, step: step(valueStep[2], token, rule) };
    const rangeStep = layout("rangeStep", rule).exec(token);
    if (rangeStep) return { kind: "span", text, first: rule.read(rangeStep[1]), last: rule.read(rangeStep[2]), step: step(rangeStep[3], token, rule) };
    return { kind: "other", text };
  });
}

function step(digits: string, token: string, rule: FieldRule): number {
  const value = readNumber(digits);
  if (value < 1 || value > rule.max) throw new CronexprError(`invalid interval ${token}`);
  return value;
}

function addSpan(values: Set<number>, first: number, last: number, every: number): void {
  for (let value = first; value <= last; value += every) values.add(value);
}

function range(min: number, max: number): Set<number> {
  const values = new Set<number>();
  addSpan(values, min, max, 1);
  return values;
}

/** cronexpr's genericFieldHandler (second, minute, hour, month, year): a `*` item stands for the whole field at once. */
function parseValues(field: string, rule: FieldRule): Set<number> {
  const values = new Set<number>();
  for (const directive of parseItems(field, rule)) {
    if (directive.kind === "other") throw new CronexprError(`syntax error in ${rule.name} field: '${directive.text}'`);
    if (directive.kind === "all") return range(rule.min, rule.max);
    if (directive.kind === "one") values.add(directive.value);
    else addSpan(values, directive.first, directive.last, directive.step);
  }
  return values;
}

/** cronexpr's domFieldHandler. */
function parseDaysOfMonth(field: string): DaysOfMonth {
  let restricted = true;
  let last = false;
  let lastWeekday = false;
  const days = new Set<number>();
  const nearestWeekdays = new Set<number>();
  for (const directive of parseItems(field, DAY_OF_MONTH)) {
    if (directive.kind === "other") {
      const token = directive.text.toLowerCase();
      const nearest = layout("nearestWeekday", DAY_OF_MONTH).exec(token);
      if (layout("lastDayOfMonth", DAY_OF_MONTH).test(token)) last = true;
      else if (layout("lastWeekdayOfMonth", DAY_OF_MONTH).test(token)) lastWeekday = true;
      else if (nearest) nearestWeekdays.add(DAY_OF_MONTH.read(nearest[1]));
      else throw new CronexprError(`syntax error in day-of-month field: '${directive.text}'`);
    } else if (directive.kind === "one") {
      days.add(directive.value);
    } else if (directive.kind === "span") {
      addSpan(days, directive.first, directive.last, directive.step);
    } else {
      addSpan(days, DAY_OF_MONTH.min, DAY_OF_MONTH.max, 1);
      restricted = false;
    }
  }
  return { restricted, days, nearestWeekdays, last, lastWeekday };
}

/** cronexpr's dowFieldHandler. */
function parseDaysOfWeek(field: string): DaysOfWeek {
  let restricted = true;
  const days = new Set<number>();
  const lastInMonth = new Set<number>();
  const nthInMonth = new Set<number>();
  for (const directive of parseItems(field, DAY_OF_WEEK)) {
    if (directive.kind === "other") {
      const token = directive.text.toLowerCase();
      const lastOne = layout("lastDayOfWeekInMonth", DAY_OF_WEEK).exec(token);
      const nth = layout("nthDayOfWeekInMonth", DAY_OF_WEEK).exec(token);
      if (lastOne) lastInMonth.add(DAY_OF_WEEK.read(lastOne[1]));
      else if (nth) nthInMonth.add((DAY_OF_WEEK.read(nth[2]) - 1) * 7 + (DAY_OF_WEEK.read(nth[1]) % 7));
      else throw new CronexprError(`syntax error in day-of-week field: '${directive.text}'`);
    } else if (directive.kind === "one") {
      days.add(directive.value);
    } else if (directive.kind === "span") {
      addSpan(days, directive.first, directive.last, directive.step);
    } else {
      addSpan(days, DAY_OF_WEEK.min, DAY_OF_WEEK.max, 1);
      restricted = false;
    }
  }
  return { restricted, days, lastInMonth, nthInMonth };
}

/** cronexpr's cronNormalizer: the predefined schedules, replaced wherever they appear. */
const PREDEFINED: Readonly<Record<string, string>> = {
  "@yearly": "0 0 0 1 1 * *",
  "@annually": "0 0 0 1 1 * *",
  "@monthly": "0 0 0 1 * * *",
  "@weekly": "0 0 0 * * 0 *",
  "@daily": "0 0 0 * * * *",
  "@hourly": "0 0 * * * * *",
};
const PREDEFINED_PATTERN = new RegExp(Object.keys(PREDEFINED).join("|"), "g");

/** Go's `\S+`: `\s` there is tab, newline, form feed, carriage return and space only. */
const FIELD = /[^\t\n\f\r ]+/g;

/** cronexpr.Parse: the schedule, or cronexpr's reason for refusing the expression. */
export function parseCronexpr(expression: string): CronexprParse {
  try {
    return { ok: true, schedule: parseOrThrow(expression) };
  } catch (error) {
    if (error instanceof CronexprError) return { ok: false, reason: error.message };
    throw error;
  }
}

function parseOrThrow(expression: string): CronexprSchedule {
  const fields = (expression.replace(PREDEFINED_PATTERN, (name) => PREDEFINED[name]).match(FIELD) ?? []).slice(0, 7);
  if (fields.length < 5) throw new CronexprError("missing field(s)");
  const withSeconds = fields.length === 7;
  const [second, minute, hour, dayOfMonth, month, dayOfWeek, year] = withSeconds ? fields : ["0", ...fields];
  return {
    seconds: withSeconds ? parseValues(second, SECOND) : new Set([0]),
    minutes: parseValues(minute, MINUTE),
    hours: parseValues(hour, HOUR),
    daysOfMonth: parseDaysOfMonth(dayOfMonth),
    months: parseValues(month, MONTH),
    daysOfWeek: parseDaysOfWeek(dayOfWeek),
    years: year === undefined ? range(YEAR.min, YEAR.max) : parseValues(year, YEAR),
  };
}
