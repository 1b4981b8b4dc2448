/** Share of the week each autoscaling policy is in force (the last matching one wins). */
import { CronExpressionParser } from "cron-parser";
import { policyShares } from "../../lib/cost/policy-time";

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

test("matches cron-parser minute by minute on a mix of periods", () => {
  const policies = [
    { periods: ["*/7 * * * *"], timezone: "America/New_York" },
    { periods: ["15-44 6-9,17 * * 1-5", "0 0 1 * *"], timezone: "Europe/Dublin" },
    { periods: ["@daily"], timezone: "UTC" },
  ];
  const expressions = policies.map((policy) => policy.periods.map((period) => CronExpressionParser.parse(period, { tz: policy.timezone })));
  const expected = new Array<number>(policies.length).fill(0);
  for (let minute = 0; minute < 7 * 24 * 60; minute += 1) {
    const at = new Date(Date.UTC(2024, 0, 8) + minute * 60_000);
    for (let index = expressions.length - 1; index >= 0; index -= 1) {
      if (expressions[index].some((expression) => expression.includesDate(at))) {
        expected[index] += 1;
        break;
      }
    }
  }

  expect(policyShares(policies)).toEqual(expected.map((count) => count / (7 * 24 * 60)));
});
