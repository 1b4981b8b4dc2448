/**
 * docker+machine's seven-field periods (second first, year last, as GitLab's autoscale docs write them)
 * in the model's five-field habit, checked against cronexpr (lib/model/cronexpr.ts): the same times selected.
 */
import { parseCronexpr } from "../../lib/model/cronexpr";
import { cronexprMatchesMinute } from "../../lib/model/cronexpr-match";
import { translateMachinePeriod } from "../../app/import/period-translation";

describe("translateMachinePeriod", () => {
  it.each([
    ["* * 9-17 * * mon-fri *", "* 9-17 * * mon-fri"],
    ["* * * * * sat,sun *", "* * * * sat,sun"],
    ["* 30-59 7 * * mon-fri *", "30-59 7 * * mon-fri"],
    ["? */15 0-6 1,15 jan-mar * *", "*/15 0-6 1,15 jan-mar *"],
    // A restricted year stays, as cronexpr's sixth field.
    ["* * 8-18 * * * 2027", "* 8-18 * * * 2027"],
  ])("translates %j to %j", (period, expected) => {
    expect(translateMachinePeriod(period)).toEqual({ ok: true, period: expected });
  });

  it.each(["* 9-17 * * mon-fri", "* 9-17 * * mon-fri 2027", "@daily"])("keeps %j, already in the model's dialect", (period) => {
    expect(translateMachinePeriod(period)).toEqual({ ok: true, period });
  });

  it("keeps a period that restricts seconds as written, with a note to check it", () => {
    const result = translateMachinePeriod("0 * 9-17 * * mon-fri *");
    expect(result).toEqual({ ok: true, period: "0 * 9-17 * * mon-fri *", note: expect.stringContaining("restricts the seconds of a minute (0)") });
  });

  it("selects the same minutes as the original, over a week", () => {
    for (const period of ["* * 9-17 * * mon-fri *", "* 30-59 7 * * mon-fri *", "* * * 1,15 * sun *"]) {
      const translated = translateMachinePeriod(period);
      if (!translated.ok) throw new Error(translated.reason);
      const [before, after] = [parseCronexpr(period), parseCronexpr(translated.period)];
      if (!before.ok || !after.ok) throw new Error("unparsable");
      const start = Date.UTC(2026, 10, 1);
      let differences = 0;
      let matches = 0;
      for (let minute = 0; minute < 31 * 24 * 60; minute++) {
        const at = start + minute * 60_000;
        const a = cronexprMatchesMinute(before.schedule, at);
        if (a !== cronexprMatchesMinute(after.schedule, at)) differences++;
        if (a) matches++;
      }
      expect({ period, differences }).toEqual({ period, differences: 0 });
      expect(matches).toBeGreaterThan(0);
    }
  });

  it("fails on a period cronexpr refuses, saying what is expected", () => {
    const result = translateMachinePeriod("* * 25 * * * *");
    expect(result.ok).toBe(false);
    expect(!result.ok && result.reason).toMatch(/^a period in gitlab-runner's cron dialect .* \(cronexpr: .+\)$/);
  });
});
