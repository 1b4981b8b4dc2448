import { officeWeekWeight, syntheticWeek, zoneMidnight } from "../../lib/simulate/synthetic-week";

const SHARDS = [
  { tags: ["small"], runUntagged: true, maxDurationSeconds: 3600 },
  { tags: ["large"], runUntagged: false, maxDurationSeconds: 600 },
];

describe("the synthetic office week", () => {
  const week = syntheticWeek({ profile: "office-week", shards: SHARDS, jobs: 20_000, seed: 7, timezone: "Europe/Amsterdam" });

  it("is the same week for the same seed, and another for another seed", () => {
    const again = syntheticWeek({ profile: "office-week", shards: SHARDS, jobs: 20_000, seed: 7, timezone: "Europe/Amsterdam" });
    expect(Array.from(again.createdAt)).toEqual(Array.from(week.createdAt));
    const other = syntheticWeek({ profile: "office-week", shards: SHARDS, jobs: 20_000, seed: 8, timezone: "Europe/Amsterdam" });
    expect(other.createdAt[0]).not.toBe(week.createdAt[0]);
  });

  it("holds about the jobs asked for, within the week starting Monday midnight in the zone", () => {
    expect(Math.abs(week.count - 20_000)).toBeLessThan(600);
    const start = zoneMidnight("2024-01-08", "Europe/Amsterdam");
    expect(start).toBe(Date.UTC(2024, 0, 7, 23) / 1000);
    expect(week.createdAt[0]).toBeGreaterThanOrEqual(start);
    expect(week.createdAt[week.count - 1]).toBeLessThan(start + 7 * 86400);
  });

  it("peaks on Monday morning, works office hours, and runs a batch at 02:00 local", () => {
    const start = zoneMidnight("2024-01-08", "Europe/Amsterdam");
    const perHour = new Array<number>(168).fill(0);
    for (const created of week.createdAt) perHour[Math.floor((created - start) / 3600)] += 1;
    const mondayPeak = perHour[10];
    const tuesdayMorning = perHour[24 + 10];
    const tuesdayNight = perHour[24 + 4];
    const tuesdayBatch = perHour[24 + 2];
    const saturdayNoon = perHour[5 * 24 + 12];
    expect(mondayPeak / tuesdayMorning).toBeGreaterThan(1.3);
    expect(tuesdayMorning / tuesdayNight).toBeGreaterThan(10);
    expect(tuesdayBatch).toBeGreaterThan(tuesdayMorning);
    expect(saturdayNoon).toBeLessThan(tuesdayMorning / 5);
  });

  it("tags each job with its shard's tags, untagged only for run_untagged shards, within the shard's timeout", () => {
    const byTags = new Map<string, number>();
    // One assertion over the jobs rather than one per job: jest's expect() costs microseconds a call.
    let longestLarge = 0;
    for (let job = 0; job < week.count; job += 1) {
      const key = week.tagSets[week.tagSet[job]].join(";");
      byTags.set(key, (byTags.get(key) ?? 0) + 1);
      if (key === "large") longestLarge = Math.max(longestLarge, week.duration[job]);
    }
    expect(longestLarge).toBeGreaterThan(0);
    expect(longestLarge).toBeLessThanOrEqual(600);
    expect([...byTags.keys()].sort()).toEqual(["", "large", "small"]);
    expect(byTags.get("large")! / week.count).toBeGreaterThan(0.45);
    expect(Math.min(...week.duration)).toBeGreaterThanOrEqual(10);
  });

  it("weighs the profile's hours as documented", () => {
    expect(officeWeekWeight(9 * 60)).toBe(1.6);
    expect(officeWeekWeight(24 * 60 + 9 * 60)).toBe(1);
    expect(officeWeekWeight(24 * 60 + 19 * 60)).toBe(0.25);
    expect(officeWeekWeight(5 * 24 * 60 + 12 * 60)).toBe(0.05);
  });
});
