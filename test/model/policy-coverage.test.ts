import { crossCheck } from "../../lib/model/cross-checks";
import { coversEveryMinute } from "../../lib/model/policy-coverage";
import { modelWith } from "../support/models";

describe("autoscaling policies that leave hours uncovered", () => {
  it.each(["* * * * *", "0-59 * * * *", "* 0-23 * * *", "* * * 1-12 *", "* * ? * *"])("counts %s as every minute", (period) => {
    expect(coversEveryMinute(period)).toBe(true);
  });

  it.each(["* 7-19 * * mon-fri", "* * * * 1-5", "0 * * * *", "* * 1-15 * *", "* * * 1-6 *", "* * * * * * 2020"])("does not count %s as every minute", (period) => {
    expect(coversEveryMinute(period)).toBe(false);
  });

  it("warns about an office-hours-only shard, naming the catch-all config.toml gets", () => {
    const model = modelWith("cell-1", (m) => {
      m.shards[1].autoscaling.policies = [{ periods: ["* 7-19 * * mon-fri"], timezone: "Europe/Amsterdam", idle_count: 4, idle_time: "30m", scale_factor: 0 }];
    });

    const findings = crossCheck(model).filter((finding) => finding.path.join(".") === "shards.1.autoscaling.policies");

    expect(findings).toEqual([
      expect.objectContaining({ severity: "warning", expected: expect.stringContaining("leading catch-all with idle_count 0, idle_time 30m") }),
    ]);
  });

  it("says nothing when one policy covers every hour", () => {
    const model = modelWith("cell-1", () => undefined);

    expect(crossCheck(model).filter((finding) => finding.path.includes("policies"))).toEqual([]);
  });
});
