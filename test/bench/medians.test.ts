import { median, timeProcess } from "../../bench/medians";

test("the median of an odd count is the middle value, of an even count the mean of the two middle ones", () => {
  expect(median([900, 30, 40])).toBe(40);
  expect(median([900, 30, 40, 50])).toBe(45);
  expect(() => median([])).toThrow("median of no values");
});

test("a timed process that fails is reported, not timed", () => {
  expect(timeProcess(process.execPath, ["-e", "0"])).toBeGreaterThan(0);
  expect(() => timeProcess(process.execPath, ["-e", "process.stderr.write('broken'); process.exit(3)"])).toThrow(/exited 3:\nbroken/);
});
