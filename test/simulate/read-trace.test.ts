import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { UserInputError } from "../../lib/process/errors";
import { formatTraceCsv, parseTrace, readTraceFile } from "../../lib/simulate/read-trace";

function refusal(text: string): string {
  try {
    parseTrace(text, "jobs.csv");
  } catch (error) {
    expect(error).toBeInstanceOf(UserInputError);
    return (error as Error).message;
  }
  throw new Error("the trace was accepted");
}

describe("the trace reader", () => {
  it("reads RFC 3339 times with offsets, Unix seconds, Go durations and ;-separated tags, in order of creation", () => {
    const trace = parseTrace(
      ["created_at,duration,tags,queued_duration", "2024-01-08T10:00:00+01:00,5m30s,docker;linux,12.5", "1704704400,90,,", "2024-01-08T08:30:00Z,1h,docker,"].join("\n"),
      "jobs.csv",
    );
    expect(trace.count).toBe(3);
    // 09:00Z (the +01:00 row) sorts after 08:30Z, and both after the Unix 1704704400 (09:00Z is 1704704400 too: ties keep file order).
    expect(Array.from(trace.createdAt)).toEqual([Date.UTC(2024, 0, 8, 8, 30) / 1000, 1704704400, 1704704400]);
    expect(Array.from(trace.duration)).toEqual([3600, 330, 90]);
    expect(trace.tagSets[trace.tagSet[0]]).toEqual(["docker"]);
    expect(trace.tagSets[trace.tagSet[1]]).toEqual(["docker", "linux"]);
    expect(trace.tagSets[trace.tagSet[2]]).toEqual([]);
    expect(trace.queuedDuration[1]).toBe(12.5);
    expect(Number.isNaN(trace.queuedDuration[2])).toBe(true);
  });

  it("ignores extra columns and reads quoted fields", () => {
    const trace = parseTrace('id,tags,created_at,duration\n7,"a;b",1704704400,"60"\n', "jobs.csv");
    expect(trace.tagSets[trace.tagSet[0]]).toEqual(["a", "b"]);
    expect(trace.duration[0]).toBe(60);
  });

  it("fails when a time is neither RFC 3339 with an offset nor Unix seconds, naming file, line and column", () => {
    const message = refusal("created_at,duration,tags\n1704704400,60,x\n2024-01-08T09:00:00,60,x\n");
    expect(message).toBe('jobs.csv:3:1: created_at "2024-01-08T09:00:00" is not valid; expected an RFC 3339 time with an offset (2024-01-08T09:00:00+01:00) or Unix seconds');
  });

  it("fails when a duration is not seconds or a Go duration, at its column", () => {
    expect(refusal("created_at,duration,tags\n1704704400,5 minutes,x\n")).toBe('jobs.csv:2:12: duration "5 minutes" is not valid; expected seconds (330) or a Go duration ("5m30s")');
  });

  it("fails when queued_duration is not seconds", () => {
    expect(refusal("created_at,duration,tags,queued_duration\n1704704400,5,x,-3\n")).toContain("jobs.csv:2:16: queued_duration \"-3\" is not valid");
  });

  it("fails when the header lacks a column, or a row a field, or the trace has no jobs", () => {
    expect(refusal("created_at,tags\n1,x\n")).toContain("jobs.csv:1:1: the header lacks duration");
    expect(refusal("created_at,duration,tags\n1704704400,60\n")).toContain("jobs.csv:2:14: tags is missing");
    expect(refusal("created_at,duration,tags\n")).toContain("the trace has a header but no jobs");
    expect(refusal("")).toContain("the trace is empty");
  });

  it("fails on a quoted field left open", () => {
    expect(refusal('created_at,duration,tags\n1704704400,60,"x\n')).toBe('jobs.csv:2:15: a quoted field is not closed; expected a closing quote (")');
  });

  it("names a file it cannot read", () => {
    expect(() => readTraceFile("/nonexistent/jobs.csv")).toThrow("/nonexistent/jobs.csv: cannot read the trace: ENOENT");
  });

  it("writes what it reads: a trace survives CSV and back", () => {
    const dir = mkdtempSync(join(tmpdir(), "trace-"));
    try {
      const trace = parseTrace("created_at,duration,tags,queued_duration\n1704704400.5,61.25,b;a,3\n1704704401,7,,\n", "in.csv");
      writeFileSync(join(dir, "out.csv"), formatTraceCsv(trace));
      const again = readTraceFile(join(dir, "out.csv"));
      expect(Array.from(again.createdAt)).toEqual(Array.from(trace.createdAt));
      expect(Array.from(again.duration)).toEqual([61.25, 7]);
      expect(again.tagSets[again.tagSet[0]]).toEqual(["a", "b"]);
      expect(again.queuedDuration[0]).toBe(3);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
