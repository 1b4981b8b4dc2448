/**
 * Autoscaling periods follow gitlab-runner's cron dialect, gorhill/cronexpr (lib/model/cronexpr.ts).
 * The accepted and refused tables follow cronexpr_parse.go's rules; the matching vectors are
 * cronexpr's own expectations, copied from its cronexpr_test.go (crontests, TestNextN), so the
 * port is checked against what the Go library answers rather than against itself.
 */
import { CRONEXPR_DIALECT, parseCronexpr, type CronexprSchedule } from "../../lib/model/cronexpr";
import { cronexprMatchesMinute, cronexprMatchesSecond, daysOfMonth } from "../../lib/model/cronexpr-match";

function schedule(expression: string): CronexprSchedule {
  const parsed = parseCronexpr(expression);
  if (!parsed.ok) throw new Error(`${expression} refused: ${parsed.reason}`);
  return parsed.schedule;
}

const sorted = (values: ReadonlySet<number>) => [...values].sort((a, b) => a - b);

describe("expressions cronexpr accepts", () => {
  const accepted: ReadonlyArray<readonly [string, string]> = [
    ["* * * * *", "five fields: minute hour day-of-month month day-of-week"],
    ["* 7-19 * * mon-fri", "ranges of hours and of day names"],
    ["*/15 9-17 * * MON-FRI", "steps, and names in any case"],
    ["* * * january,DECEMBER sunday", "long month and day names"],
    ["* * * * * 2030", "six fields: the sixth is a year, not a leading second"],
    ["0 * * * * * *", "seven fields: a leading second and a trailing year"],
    ["0-30/10 * * * * * 2024-2030/2", "steps and ranges in the second and year fields"],
    ["* * * * * * * ignored trailing fields", "fields past the seventh are ignored"],
    ["0 0 L * *", "L: the last day of the month"],
    ["0 0 LW * *", "LW: the last weekday of the month"],
    ["0 0 15W * *", "15W: the weekday nearest the 15th"],
    ["0 0 * * 5L", "5L: the last Friday of the month"],
    ["0 0 * * fri#3", "fri#3: the third Friday"],
    ["0 0 ? * mon", "? is a wildcard"],
    ["@hourly", "predefined: @hourly"],
    ["@daily", "predefined: @daily"],
    ["@weekly", "predefined: @weekly"],
    ["@monthly", "predefined: @monthly"],
    ["@yearly", "predefined: @yearly"],
    ["@annually", "predefined: @annually"],
    ["0 @hourly", "a predefined name is replaced wherever it stands; the eighth field is ignored"],
    ["1,,2 * * * *", "empty list items are skipped"],
    ["*,bogus * * * *", "in the minute field a * ends the list before a bad item is looked at"],
    ["40-10 * * * *", "a range whose start is after its end selects nothing, without an error"],
    ["*/59 * * * *", "a step up to the field's maximum"],
    ["10/20 * * * *", "value/step runs to the field's maximum"],
    ["* * * * 7", "7 is Sunday"],
    ["* * * 01 00", "leading zeros match the value patterns"],
    ["\t* * * * *\n", "surrounding tabs and newlines"],
  ];

  it.each(accepted)("accepts %j (%s)", (expression) => {
    expect(parseCronexpr(expression)).toMatchObject({ ok: true });
  });
});

describe("expressions cronexpr refuses", () => {
  const refused: ReadonlyArray<readonly [string, string, string]> = [
    ["every day", "missing field(s)", "fewer than five fields"],
    ["* * * *", "missing field(s)", "four fields"],
    ["", "missing field(s)", "nothing at all"],
    ["@minutely", "missing field(s)", "cronexpr has no @minutely (its README lists it, its code does not)"],
    ["@reboot", "missing field(s)", "@reboot is not a schedule"],
    ["@DAILY", "missing field(s)", "predefined names are case-sensitive"],
    ["60 * * * *", "syntax error in minute field: '60'", "minute past 59"],
    ["007 * * * *", "syntax error in minute field: '007'", "at most one leading zero"],
    ["H * * * *", "syntax error in minute field: 'H'", "no Jenkins-style H"],
    ["* 24 * * *", "syntax error in hour field: '24'", "hour past 23"],
    ["* * 0 * *", "syntax error in day-of-month field: '0'", "days of the month start at 1"],
    ["* * 32 * *", "syntax error in day-of-month field: '32'", "day of the month past 31"],
    ["* * *,bogus * *", "syntax error in day-of-month field: 'bogus'", "day-of-month checks every item, even after a *"],
    ["* * W * *", "syntax error in day-of-month field: 'W'", "W needs a day"],
    ["* * 1-5W * *", "syntax error in day-of-month field: '1-5W'", "W takes a single day, not a range"],
    ["* * * 13 *", "syntax error in month field: '13'", "month past 12"],
    ["* * * sept *", "syntax error in month field: 'sept'", "only three-letter and full month names"],
    ["* * * * 8", "syntax error in day-of-week field: '8'", "day of the week past 7"],
    ["* * * * L", "syntax error in day-of-week field: 'L'", "L in the day-of-week field needs a day"],
    ["* * * * 5#6", "syntax error in day-of-week field: '5#6'", "# takes 1 to 5"],
    ["* * * * * 1969", "syntax error in year field: '1969'", "years start at 1970"],
    ["* * * * * * 2100", "syntax error in year field: '2100'", "years end at 2099"],
    ["60 * * * * * *", "syntax error in second field: '60'", "second past 59"],
    ["*/0 * * * *", "invalid interval */0", "a step of 0"],
    ["*/60 * * * *", "invalid interval */60", "a step past the minute field's maximum"],
    ["* */24 * * *", "invalid interval */24", "a step past the hour field's maximum"],
    ["* * * * */7", "invalid interval */7", "a step past the day-of-week field's maximum (6)"],
    ["* * * * * 1970/100", "invalid interval 1970/100", "steps are read through cronexpr's number table: 100 is not in it"],
    ["*,5/0 * * * *", "invalid interval 5/0", "bad steps are found even after a *"],
    [", * * * *", "minute field: missing directive", "a field of commas only"],
  ];

  it.each(refused)("refuses %j: %s (%s)", (expression, reason) => {
    expect(parseCronexpr(expression)).toEqual({ ok: false, reason });
  });

  it("names the dialect for messages", () => {
    expect(CRONEXPR_DIALECT).toContain("gorhill/cronexpr");
  });
});

describe("what an expression selects", () => {
  it("gives a 5-field expression second 0 and every year cronexpr knows (1970-2099)", () => {
    const parsed = schedule("* * * * *");
    expect(sorted(parsed.seconds)).toEqual([0]);
    expect(parsed.years.size).toBe(130);
    expect(parsed.years.has(1970) && parsed.years.has(2099)).toBe(true);
  });

  it("reads the sixth of six fields as a year", () => {
    expect(sorted(schedule("* * * * * 2030").years)).toEqual([2030]);
  });

  it("steps from a value to the field's maximum", () => {
    expect(sorted(schedule("10/20 * * * *").minutes)).toEqual([10, 30, 50]);
    expect(sorted(schedule("*/20 * * * *").minutes)).toEqual([0, 20, 40]);
  });

  it("reads 7 as Sunday even inside a range, so 5-7 selects no day at all", () => {
    expect(sorted(schedule("* * * * 5-7").daysOfWeek.days)).toEqual([]);
    expect(sorted(schedule("* * * * 0-7").daysOfWeek.days)).toEqual([0]);
  });

  it("reads leading-zero months and days of the week as 0, as the pinned token tables do", () => {
    expect(sorted(schedule("* * * 01 *").months)).toEqual([0]);
    expect(sorted(schedule("* * * * 01").daysOfWeek.days)).toEqual([0]);
  });

  it("lets a * make a day field unrestricted, whatever else the list holds", () => {
    expect(schedule("* * 5,* * mon").daysOfMonth.restricted).toBe(false);
    expect(schedule("* * 5 * mon").daysOfMonth.restricted).toBe(true);
  });
});

/** cronexpr's Next: the first matching second strictly after `from` (UTC wall clock), skipping days and hours that cannot match. */
function next(parsed: CronexprSchedule, from: Date, limit = 2 * 366 * 24 * 60): Date {
  let at = from.getTime() + 1000;
  for (let steps = 0; steps < limit; steps += 1) {
    const date = new Date(at);
    const [year, month, day] = [date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate()];
    if (!parsed.years.has(year) || !parsed.months.has(month) || !daysOfMonth(parsed, year, month).has(day)) {
      at = Date.UTC(year, month - 1, day + 1);
    } else if (!parsed.hours.has(date.getUTCHours())) {
      at = Math.floor(at / 3_600_000) * 3_600_000 + 3_600_000;
    } else if (!cronexprMatchesMinute(parsed, at)) {
      at = Math.floor(at / 60_000) * 60_000 + 60_000;
    } else if (cronexprMatchesSecond(parsed, at)) {
      return date;
    } else {
      at += 1000;
    }
  }
  throw new Error("no match within the limit");
}

const utc = (text: string) => new Date(`${text.replace(" ", "T")}${text.length === 10 ? "T00:00:00" : ""}Z`);

describe("matches where cronexpr's own tests say Next lands (cronexpr_test.go)", () => {
  const vectors: ReadonlyArray<readonly [string, ReadonlyArray<readonly [string, string]>]> = [
    ["* * * * * * *", [["2013-01-01 00:00:00", "2013-01-01 00:00:01"], ["2013-01-01 00:00:59", "2013-01-01 00:01:00"], ["2013-01-01 00:59:59", "2013-01-01 01:00:00"], ["2013-01-01 23:59:59", "2013-01-02 00:00:00"], ["2013-02-28 23:59:59", "2013-03-01 00:00:00"], ["2016-02-28 23:59:59", "2016-02-29 00:00:00"], ["2012-12-31 23:59:59", "2013-01-01 00:00:00"]]],
    ["*/5 * * * * * *", [["2013-01-01 00:00:00", "2013-01-01 00:00:05"], ["2013-01-01 00:00:59", "2013-01-01 00:01:00"], ["2013-01-01 00:59:59", "2013-01-01 01:00:00"], ["2013-01-01 23:59:59", "2013-01-02 00:00:00"], ["2013-02-28 23:59:59", "2013-03-01 00:00:00"], ["2016-02-28 23:59:59", "2016-02-29 00:00:00"], ["2012-12-31 23:59:59", "2013-01-01 00:00:00"]]],
    ["* * * * *", [["2013-01-01 00:00:00", "2013-01-01 00:01:00"], ["2013-01-01 00:00:59", "2013-01-01 00:01:00"], ["2013-01-01 00:59:00", "2013-01-01 01:00:00"], ["2013-01-01 23:59:00", "2013-01-02 00:00:00"], ["2013-02-28 23:59:00", "2013-03-01 00:00:00"], ["2016-02-28 23:59:00", "2016-02-29 00:00:00"], ["2012-12-31 23:59:00", "2013-01-01 00:00:00"]]],
    ["17-43/5 * * * *", [["2013-01-01 00:00:00", "2013-01-01 00:17:00"], ["2013-01-01 00:16:59", "2013-01-01 00:17:00"], ["2013-01-01 00:30:00", "2013-01-01 00:32:00"], ["2013-01-01 00:50:00", "2013-01-01 01:17:00"], ["2013-01-01 23:50:00", "2013-01-02 00:17:00"], ["2013-02-28 23:50:00", "2013-03-01 00:17:00"], ["2016-02-28 23:50:00", "2016-02-29 00:17:00"], ["2012-12-31 23:50:00", "2013-01-01 00:17:00"]]],
    ["15-30/4,55 * * * *", [["2013-01-01 00:00:00", "2013-01-01 00:15:00"], ["2013-01-01 00:16:00", "2013-01-01 00:19:00"], ["2013-01-01 00:30:00", "2013-01-01 00:55:00"], ["2013-01-01 00:55:00", "2013-01-01 01:15:00"], ["2013-01-01 23:55:00", "2013-01-02 00:15:00"], ["2013-02-28 23:55:00", "2013-03-01 00:15:00"], ["2016-02-28 23:55:00", "2016-02-29 00:15:00"], ["2012-12-31 23:54:00", "2012-12-31 23:55:00"], ["2012-12-31 23:55:00", "2013-01-01 00:15:00"]]],
    ["0 0 * * MON", [["2013-01-01 00:00:00", "2013-01-07 00:00:00"], ["2013-01-28 00:00:00", "2013-02-04 00:00:00"], ["2013-12-30 00:30:00", "2014-01-06 00:00:00"]]],
    ["0 0 * * friday", [["2013-01-01 00:00:00", "2013-01-04 00:00:00"], ["2013-01-28 00:00:00", "2013-02-01 00:00:00"], ["2013-12-30 00:30:00", "2014-01-03 00:00:00"]]],
    ["0 0 * * 6,7", [["2013-01-01 00:00:00", "2013-01-05 00:00:00"], ["2013-01-28 00:00:00", "2013-02-02 00:00:00"], ["2013-12-30 00:30:00", "2014-01-04 00:00:00"]]],
    ["0 0 * * 6#5", [["2013-09-02 00:00:00", "2013-11-30 00:00:00"]]],
    ["0 0 14W * *", [["2013-03-31 00:00:00", "2013-04-15 00:00:00"], ["2013-08-31 00:00:00", "2013-09-13 00:00:00"]]],
    ["0 0 30W * *", [["2013-03-02 00:00:00", "2013-03-29 00:00:00"], ["2013-06-02 00:00:00", "2013-06-28 00:00:00"], ["2013-09-02 00:00:00", "2013-09-30 00:00:00"], ["2013-11-02 00:00:00", "2013-11-29 00:00:00"]]],
    ["0 0 L * *", [["2013-09-02 00:00:00", "2013-09-30 00:00:00"], ["2014-01-01 00:00:00", "2014-01-31 00:00:00"], ["2014-02-01 00:00:00", "2014-02-28 00:00:00"], ["2016-02-15 00:00:00", "2016-02-29 00:00:00"]]],
    ["0 0 LW * *", [["2013-09-02 00:00:00", "2013-09-30 00:00:00"], ["2013-11-02 00:00:00", "2013-11-29 00:00:00"], ["2014-08-15 00:00:00", "2014-08-29 00:00:00"]]],
  ];
  const cases = vectors.flatMap(([expression, times]) => times.map(([from, expected]) => [expression, from, expected] as const));

  it.each(cases)("%s after %s is %s", (expression, from, expected) => {
    expect(next(schedule(expression), utc(from)).toISOString()).toBe(utc(expected).toISOString());
  });

  it("finds the fifth Saturdays cronexpr's TestNextN lists", () => {
    const parsed = schedule("0 0 * * 6#5");
    const found: string[] = [];
    let at = utc("2013-09-02 08:44:30");
    for (let index = 0; index < 5; index += 1) {
      at = next(parsed, at);
      found.push(at.toISOString().slice(0, 10));
    }
    expect(found).toEqual(["2013-11-30", "2014-03-29", "2014-05-31", "2014-08-30", "2014-11-29"]);
  });

  it("steps every five minutes as cronexpr's TestNextN_every5min lists", () => {
    const parsed = schedule("*/5 * * * *");
    const found: string[] = [];
    let at = utc("2013-09-02 08:44:32");
    for (let index = 0; index < 5; index += 1) {
      at = next(parsed, at);
      found.push(at.toISOString().slice(11, 19));
    }
    expect(found).toEqual(["08:45:00", "08:50:00", "08:55:00", "09:00:00", "09:05:00"]);
  });
});
