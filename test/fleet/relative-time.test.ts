import { relativeTime } from "../../lib/time/relative-time";

const NOW = Date.parse("2026-03-10T12:00:00Z");
const ago = (ms: number) => new Date(NOW - ms).toISOString();

test.each([
  [45_000, "45s ago"],
  [3 * 60_000 + 59_000, "3m ago"],
  [59 * 60_000, "59m ago"],
  [2 * 3600_000 + 30 * 60_000, "2h ago"],
  [47 * 3600_000, "47h ago"],
  [10 * 24 * 3600_000 + 5 * 3600_000, "10d ago"],
])("%d ms is %s", (ms, text) => {
  expect(relativeTime(ago(ms), NOW)).toBe(text);
});

test("never contacted reads never; a clock ahead of ours reads just now", () => {
  expect(relativeTime(null, NOW)).toBe("never");
  expect(relativeTime(new Date(NOW + 5000).toISOString(), NOW)).toBe("just now");
});
