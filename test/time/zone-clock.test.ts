/**
 * lib/time/zone-clock.ts reads zones without building an Intl.DateTimeFormat, and must say what one
 * says: every zone it calls valid is one DateTimeFormat takes, and every wall clock it reads through
 * TZ is the one DateTimeFormat formats, for every zone it reads, around a year's offset changes too.
 * The TZ readings run in a node of their own, on the compiled module: under jest, process.env is a
 * copy, whose TZ moves no clock (and the module, seeing that, asks DateTimeFormat instead). One node
 * (started without TZ) makes every reading the tests check, and one more starts with TZ set: a node
 * costs as much CPU as the readings of a week.
 */
import { spawnSync } from "node:child_process";
import { isListedZone, readsWallClocks, wallClocks } from "../../lib/time/zone-clock";
import { REPO_ROOT } from "../support/cli";

/**
 * Runs `body` in a node with the compiled module as `zoneClock` and `intlWallClock` (the wall clock
 * DateTimeFormat formats, read from its text: reading it through formatToParts cost three times the
 * CPU), and returns what it prints as JSON.
 */
function inNode(body: string, env: NodeJS.ProcessEnv): unknown {
  const script = `
    const zoneClock = require("./dist/lib/time/zone-clock.js");
    const formats = new Map();
    const intlWallClock = (zone, time) => {
      if (!formats.has(zone)) formats.set(zone, new Intl.DateTimeFormat("en-US", { timeZone: zone, hourCycle: "h23", year: "numeric", month: "numeric", day: "numeric", hour: "numeric", minute: "numeric" }));
      const text = formats.get(zone).format(time);
      const fields = /^(\\d{1,2})\\/(\\d{1,2})\\/(\\d{4}), (\\d{2}):(\\d{2})$/.exec(text);
      if (!fields) throw new Error("unexpected DateTimeFormat text " + JSON.stringify(text));
      const [month, day, year, hour, minute] = fields.slice(1).map(Number);
      return Date.UTC(year, month - 1, day, hour, minute);
    };
    const times = (start, count, step) => Array.from({ length: count }, (_, index) => start + index * step);
    process.stdout.write(JSON.stringify((() => { ${body} })()));
  `;
  const result = spawnSync(process.execPath, ["-e", script], { cwd: REPO_ROOT, encoding: "utf8", env, timeout: 60_000 });
  expect(result.stderr).toBe("");
  return JSON.parse(result.stdout);
}

/** process.env with TZ set to `tz`, or without TZ. */
function envWithTz(tz: string | undefined): NodeJS.ProcessEnv {
  const env = { ...process.env };
  if (tz === undefined) delete env.TZ;
  else env.TZ = tz;
  return env;
}

const HOUR_MS = 3_600_000;
/** Monday 2024-01-08 00:00 UTC, the cost estimate's reference week (lib/cost/policy-time.ts). */
const REFERENCE_WEEK_START = Date.UTC(2024, 0, 8);
/** Both hemispheres, half-hour changes (Lord Howe), a Ramadan pause (Casablanca), half- and quarter-hour offsets. */
const YEAR_ZONES = ["Europe/Amsterdam", "America/New_York", "Australia/Sydney", "Australia/Lord_Howe", "Africa/Casablanca", "America/Santiago", "Australia/Eucla", "Asia/Kabul", "Pacific/Chatham", "America/St_Johns"];

/** Reads `Asia/Tokyo` and returns TZ and the local offset before and after, in a node started with TZ `tz`. */
const LEAVES_TZ = `(() => {
    const offset = () => new Date(${REFERENCE_WEEK_START}).getTimezoneOffset();
    const before = [process.env.TZ, offset()];
    const tokyo = zoneClock.wallClocks("Asia/Tokyo", [${REFERENCE_WEEK_START}])[0];
    return { before, tokyo, after: [process.env.TZ, offset()], has: "TZ" in process.env };
  })()`;

interface Readings {
  readonly readsListed: boolean[];
  readonly weekDiffering: string[] | string;
  readonly yearDiffering: string[];
  readonly leavesTz: unknown;
  readonly copiedEnv: boolean[];
}

let readings: Readings | undefined;
/** Every reading of the node started without TZ, made once, on first use. */
function readingsWithoutTz(): Readings {
  readings ??= inNode(
    `
    const readsListed = ["Europe/Amsterdam", "America/New_York", "EST5EDT"].map(zoneClock.readsWallClocks);
    const leavesTz = ${LEAVES_TZ};

    const week = times(${REFERENCE_WEEK_START}, 7 * 48, ${HOUR_MS / 2});
    const zones = [...Intl.supportedValuesOf("timeZone"), "UTC"].filter(zoneClock.readsWallClocks);
    const weekDiffering = zones.length < 300 ? "only " + zones.length + " zones read"
      : zones.filter((zone) => zoneClock.wallClocks(zone, week).some((clock, index) => clock !== intlWallClock(zone, week[index])));

    // Times 7 s into a minute.
    const year = times(Date.UTC(2024, 0, 1) + 7000, 366 * 96, ${HOUR_MS / 4});
    const yearDiffering = ${JSON.stringify(YEAR_ZONES)}.map((zone) => {
      if (!zoneClock.readsWallClocks(zone)) return zone + " not read through TZ";
      const clocks = zoneClock.wallClocks(zone, year);
      return year.filter((time, index) => clocks[index] !== intlWallClock(zone, time)).map((time) => zone + " " + new Date(time).toISOString());
    }).flat();

    // Last: from here on, process.env is a copy, seen by the module loaded afresh (it asks once whether TZ moves the clock).
    process.env = { ...process.env };
    delete require.cache[require.resolve("./dist/lib/time/zone-clock.js")];
    const copiedEnv = ["Europe/Amsterdam", "UTC"].map(require("./dist/lib/time/zone-clock.js").readsWallClocks);
    return { readsListed, leavesTz, weekDiffering, yearDiffering, copiedEnv };
  `,
    envWithTz(undefined),
  ) as Readings;
  return readings;
}

test("every zone it calls valid, Intl.DateTimeFormat takes; others it leaves to DateTimeFormat", () => {
  for (const zone of [...Intl.supportedValuesOf("timeZone"), "UTC"]) {
    expect(isListedZone(zone)).toBe(true);
    expect(() => new Intl.DateTimeFormat("en-US", { timeZone: zone })).not.toThrow();
  }
  // An alias and another spelling are zones too, but only DateTimeFormat says so.
  for (const zone of ["US/Pacific", "europe/amsterdam", "Europe/Amsterdm", "", "+01:00"]) expect(isListedZone(zone)).toBe(false);
});

test("reads through TZ only listed zones whose names ICU takes from TZ as they are", () => {
  expect(readsWallClocks("UTC")).toBe(true);
  expect(wallClocks("UTC", [REFERENCE_WEEK_START + 59_999, -1])).toEqual([REFERENCE_WEEK_START, -60_000]);
  // A digit makes ICU read TZ as a POSIX rule; a short name is checked against the C library; an alias is not listed.
  for (const zone of ["Etc/GMT+5", "EST5EDT", "EST", "US/Pacific", "europe/amsterdam"]) expect(readsWallClocks(zone)).toBe(false);
  expect(() => wallClocks("US/Pacific", [0])).toThrow('cannot read the wall clock of "US/Pacific" through TZ');
  expect(readingsWithoutTz().readsListed).toEqual([true, true, false]);
});

test("reads the wall clock DateTimeFormat formats, for every zone it reads, at every half hour of the reference week", () => {
  expect(readingsWithoutTz().weekDiffering).toEqual([]);
});

test("reads the same as DateTimeFormat every quarter hour of a year, across zones' offset changes", () => {
  expect(readingsWithoutTz().yearDiffering).toEqual([]);
});

test.each([undefined, "America/New_York"])("leaves TZ and the process's local time as they were (TZ %s)", (tz) => {
  const after = tz === undefined ? readingsWithoutTz().leavesTz : inNode(`return ${LEAVES_TZ};`, envWithTz(tz));
  const offset = tz === undefined ? new Date(REFERENCE_WEEK_START).getTimezoneOffset() : 300;
  // JSON writes an unset TZ as null.
  expect(after).toEqual({ before: [tz ?? null, offset], tokyo: REFERENCE_WEEK_START + 9 * HOUR_MS, after: [tz ?? null, offset], has: tz !== undefined });
});

test("where process.env is a copy, whose TZ moves no clock, zones are left to DateTimeFormat", () => {
  expect(readingsWithoutTz().copiedEnv).toEqual([false, true]);
});
