/**
 * IANA time zones from ICU's data, the data Intl.DateTimeFormat reads, mostly without building one:
 * a process's first DateTimeFormat has ICU list and check every locale it holds data for (about 110
 * million instructions), and a dry run built them only to check its
 * policies' zones and to read their offsets over one week.
 *
 * - Whether a zone is one: the zones Intl lists (`Intl.supportedValuesOf`, no locale data) are, and
 *   so is "UTC"; any other text (an alias, another spelling, a mistake) is asked of DateTimeFormat.
 * - A zone's wall clock: read through the process's own local time, with TZ set to the zone for the
 *   moment of the reading (setting process.env.TZ has node point ICU's default zone, which V8's local
 *   time reads, at it), then TZ set back. Only for listed zones whose name ICU takes from TZ as it is
 *   (longer than four characters, no digit or comma), and where setting process.env.TZ does
 *   move local time (not where process.env is a copy, as under jest); other
 *   zones are read with a DateTimeFormat.
 *
 * The TZ switch changes the process's local time for as long as a reading takes (one synchronous pass
 * over the times asked, a week of hours at a time), so nothing on this thread sees it; ICU's default zone
 * is the process's, so another thread reading local time at that moment would. No thread of these
 * commands reads local time: they work in UTC and in named zones.
 */
let listedZones: ReadonlySet<string> | undefined;

/** True when `text` is a zone Intl.DateTimeFormat takes, "UTC" or a zone Intl lists, without building one; false when unsure. */
export function isListedZone(text: string): boolean {
  listedZones ??= new Set(Intl.supportedValuesOf("timeZone"));
  return text === "UTC" || listedZones.has(text);
}

/** A name ICU takes from TZ as it is: ICU reads a TZ with a digit or comma as a POSIX rule, and checks a short one against the C library's offset. */
const READ_FROM_TZ = /^[^\d,]{5,}$/;

/** True when wallClocks can read `zone` (see above). */
export function readsWallClocks(zone: string): boolean {
  return zone === "UTC" || (READ_FROM_TZ.test(zone) && isListedZone(zone) && tzMovesLocalTime());
}

/**
 * The wall clock of `zone` at each of `utcTimes`, for a zone readsWallClocks takes: a UTC timestamp with
 * the same fields, to the minute (what DateTimeFormat's year, month, day, hour and minute give).
 */
export function wallClocks(zone: string, utcTimes: readonly number[]): number[] {
  if (!readsWallClocks(zone)) throw new Error(`cannot read the wall clock of ${JSON.stringify(zone)} through TZ`);
  if (zone === "UTC") return utcTimes.map((time) => time - mod(time, 60_000));
  return withTz(zone, () =>
    utcTimes.map((time) => {
      const local = new Date(time);
      return Date.UTC(local.getFullYear(), local.getMonth(), local.getDate(), local.getHours(), local.getMinutes());
    }),
  );
}

let tzMoves: boolean | undefined;

/**
 * Whether setting process.env.TZ moves this thread's local time: asked once, of two zones with fixed
 * offsets in 2024 (Tokyo +9, Kiritimati +14), which no single zone the process was in can both match.
 */
function tzMovesLocalTime(): boolean {
  if (tzMoves === undefined) {
    const offsetIn = (zone: string) => withTz(zone, () => new Date(Date.UTC(2024, 0, 8)).getTimezoneOffset());
    tzMoves = offsetIn("Asia/Tokyo") === -9 * 60 && offsetIn("Pacific/Kiritimati") === -14 * 60;
  }
  return tzMoves;
}

function withTz<T>(zone: string, read: () => T): T {
  const previous = process.env.TZ;
  process.env.TZ = zone;
  try {
    return read();
  } finally {
    // Deleting TZ, too, has node point local time back at the system's zone.
    if (previous === undefined) delete process.env.TZ;
    else process.env.TZ = previous;
  }
}

function mod(value: number, divisor: number): number {
  return ((value % divisor) + divisor) % divisor;
}
