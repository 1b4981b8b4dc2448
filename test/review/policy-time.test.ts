/** Share of the week each autoscaling policy is in force (the last matching one wins). */
import { spawnSync } from "node:child_process";
import { localClock, policyShares } from "../../lib/cost/policy-time";
import { REPO_ROOT } from "../support/cli";

test("an always-on policy is in force the whole week", () => {
  expect(policyShares([{ periods: ["* * * * *"], timezone: "UTC" }])).toEqual([1]);
});

test("working hours take 5 days x 13 hours of the week from the always-on policy before them", () => {
  const shares = policyShares([
    { periods: ["* * * * *"], timezone: "UTC" },
    { periods: ["* 7-19 * * mon-fri"], timezone: "Europe/Amsterdam" },
  ]);

  const working = (5 * 13) / (7 * 24);
  expect(shares[1]).toBeCloseTo(working, 6);
  expect(shares[0]).toBeCloseTo(1 - working, 6);
});

test("an earlier policy covered by a later one is never in force", () => {
  expect(policyShares([
    { periods: ["* 8-9 * * *"], timezone: "UTC" },
    { periods: ["* * * * *"], timezone: "UTC" },
  ])).toEqual([0, 1]);
});

test("time outside every period counts for no policy", () => {
  const [share] = policyShares([{ periods: ["* 0-5 * * sat,sun"], timezone: "UTC" }]);

  expect(share).toBeCloseTo((2 * 6) / (7 * 24), 6);
});

test("periods are read in the policy's time zone", () => {
  // Monday 09:00 in Tokyo is Monday 00:00 UTC; a UTC policy for Monday 00:xx that comes later takes exactly that hour.
  const shares = policyShares([
    { periods: ["* 9 * * mon"], timezone: "Asia/Tokyo" },
    { periods: ["* 0 * * mon"], timezone: "UTC" },
  ]);

  expect(shares[0]).toBe(0);
  expect(shares[1]).toBeCloseTo(1 / (7 * 24), 6);
});

test("half-hour zones and minute fields count minute by minute", () => {
  // 10:00-10:29 in Kolkata (UTC+5:30) is 04:30-04:59 UTC; the UTC policy for 04:xx overlaps half of it.
  const shares = policyShares([
    { periods: ["0-29 10 * * *"], timezone: "Asia/Kolkata" },
    { periods: ["* 4 * * *"], timezone: "UTC" },
  ]);

  expect(shares[0]).toBe(0);
  expect(shares[1]).toBeCloseTo(1 / 24, 6);
  expect(policyShares([{ periods: ["0-29 10 * * *"], timezone: "Asia/Kolkata" }])[0]).toBeCloseTo(0.5 / 24, 6);
});

describe("periods are read in gitlab-runner's cron dialect (gorhill/cronexpr), on the reference week's calendar (Mon 8 to Sun 14 January 2024)", () => {
  const share = (period: string) => policyShares([{ periods: [period], timezone: "UTC" }])[0];
  const day = 1 / 7;

  const cases: ReadonlyArray<readonly [string, number, string]> = [
    ["* * * * * 2024", 1, "six fields end in a year: this one"],
    ["* * * * * 2025", 0, "six fields end in a year: another one"],
    ["0 * * * * * *", 1, "seven fields: a period of second 0 puts the whole minute in force"],
    ["* * * * 1#2", day, "the second Monday of January 2024 is the 8th"],
    ["* * * * 1#1", 0, "the first Monday (1 January) is outside the week"],
    ["* * 13W * *", day, "the 13th is a Saturday: the nearest weekday is Friday the 12th"],
    ["* * 10 * mon", 2 * day, "day-of-month and day-of-week both restricted: either one (Monday 8th, Wednesday 10th)"],
    ["* * * * 01", day, "the pinned cronexpr reads a leading-zero day of the week as Sunday (the 14th)"],
    ["* * * * 5-7", 0, "7 is Sunday (0), so 5-7 selects no day"],
    ["@daily", 7 / (7 * 24 * 60), "@daily is midnight, one minute a day"],
  ];

  it.each(cases)("%s is in force for %f of the week (%s)", (period, expected) => {
    expect(share(period)).toBeCloseTo(expected, 9);
  });
});

test("a zone's wall clock is exact minute by minute across a change, also one at half past (Lord Howe)", () => {
  const intlOffsetMinutes = (timezone: string, utcMs: number) => {
    const format = new Intl.DateTimeFormat("en-US", { timeZone: timezone, hourCycle: "h23", year: "numeric", month: "numeric", day: "numeric", hour: "numeric", minute: "numeric" });
    const parts = Object.fromEntries(format.formatToParts(new Date(utcMs)).map((part) => [part.type, Number(part.value)]));
    return (Date.UTC(parts.year, parts.month - 1, parts.day, parts.hour, parts.minute) - utcMs) / 60_000;
  };
  for (const [timezone, from, offsets] of [
    ["Europe/Amsterdam", "2024-03-31T00:00:00Z", [60, 120]],
    ["Australia/Lord_Howe", "2024-10-05T15:00:00Z", [630, 660]],
  ] as const) {
    const clock = localClock(timezone);
    const seen = new Set<number>();
    for (let minute = 0; minute < 120; minute++) {
      const utcMs = Date.parse(from) + minute * 60_000;
      const offset = (clock(utcMs) - utcMs) / 60_000;
      expect({ timezone, minute, offset }).toEqual({ timezone, minute, offset: intlOffsetMinutes(timezone, utcMs) });
      seen.add(offset);
    }
    expect([...seen]).toEqual(offsets);
  }
});

test("a zone Intl lists reads the same clock as an alias of it, which is asked of Intl.DateTimeFormat", () => {
  const listed = localClock("America/Los_Angeles");
  const alias = localClock("US/Pacific");
  // A week of quarter hours around the March change.
  for (let quarter = 0; quarter < 7 * 96; quarter++) {
    const utcMs = Date.UTC(2024, 2, 7) + quarter * 900_000;
    expect({ utcMs, clock: alias(utcMs) }).toEqual({ utcMs, clock: listed(utcMs) });
  }
});

test("fails when the zone is not one, as its clock is made", () => {
  expect(() => localClock("Mars/Olympus_Mons")).toThrow(RangeError);
});

test("a zone's wall clock before 1970 (negative timestamps) is the one Intl formats", () => {
  const clock = localClock("Europe/Amsterdam");
  const format = new Intl.DateTimeFormat("en-US", { timeZone: "Europe/Amsterdam", hourCycle: "h23", year: "numeric", month: "numeric", day: "numeric", hour: "numeric", minute: "numeric" });
  for (let quarter = 0; quarter < 96; quarter++) {
    const utcMs = Date.UTC(1960, 5, 1) + quarter * 900_000 + 60_000;
    const parts = Object.fromEntries(format.formatToParts(new Date(utcMs)).map((part) => [part.type, Number(part.value)]));
    expect({ utcMs, clock: clock(utcMs) }).toEqual({ utcMs, clock: Date.UTC(parts.year, parts.month - 1, parts.day, parts.hour, parts.minute) });
  }
});

test("in a node of its own, where zones are read through TZ, the clock is the one Intl formats: every 7 minutes of a week, across changes and before 1970", () => {
  // Under jest process.env is a copy and the clock asks Intl (lib/time/zone-clock.ts); a node of its own reads through TZ.
  const script = `
    const { localClock } = require("./dist/lib/cost/policy-time.js");
    const { readsWallClocks } = require("./dist/lib/time/zone-clock.js");
    const differing = [];
    for (const [zone, from] of [["Europe/Amsterdam", Date.UTC(2024, 2, 28)], ["Australia/Lord_Howe", Date.UTC(2024, 9, 3)], ["America/New_York", Date.UTC(1969, 11, 28)]]) {
      if (!readsWallClocks(zone)) differing.push(zone + " not read through TZ");
      const clock = localClock(zone);
      const format = new Intl.DateTimeFormat("en-US", { timeZone: zone, hourCycle: "h23", year: "numeric", month: "numeric", day: "numeric", hour: "numeric", minute: "numeric" });
      for (let utcMs = from; utcMs < from + 7 * 86400000; utcMs += 7 * 60000) {
        const parts = Object.fromEntries(format.formatToParts(new Date(utcMs)).map((part) => [part.type, Number(part.value)]));
        if (clock(utcMs) !== Date.UTC(parts.year, parts.month - 1, parts.day, parts.hour, parts.minute)) differing.push(zone + " " + new Date(utcMs).toISOString());
      }
    }
    console.log(JSON.stringify(differing));
  `;
  const result = spawnSync(process.execPath, ["-e", script], { cwd: REPO_ROOT, encoding: "utf8", timeout: 60_000 });
  expect(result.stderr).toBe("");
  expect(JSON.parse(result.stdout)).toEqual([]);
});
