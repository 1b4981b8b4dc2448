/**
 * Reads a job trace CSV (the format `simulate --export` and `--synthetic` write):
 *
 *   created_at,duration,tags[,queued_duration]
 *   2024-01-08T09:00:00+01:00,5m30s,docker;linux,12.5
 *
 * - created_at: RFC 3339 with an offset (Z or +01:00), or Unix seconds;
 * - duration: seconds, or a Go duration ("5m30s");
 * - tags: `;`-separated, empty for an untagged job;
 * - queued_duration (optional column): seconds, as GitLab records the job's wait; empty when unknown.
 * Other columns are ignored, so a wider export can be read as it is. Fields may be quoted as
 * RFC 4180 says. A bad row is refused with file, line and column (exit 2): a simulation of a
 * silently shortened trace would look better than the fleet is.
 */
import { readFileSync } from "node:fs";
import { parseGoDurationSeconds } from "../model/duration";
import { UserInputError } from "../process/errors";
import { JobTraceBuilder, type JobTrace } from "./job-trace";

export const TRACE_COLUMNS = ["created_at", "duration", "tags", "queued_duration"] as const;
const REQUIRED = ["created_at", "duration", "tags"] as const;

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
const NUMBER = /^[0-9]+(\.[0-9]+)?$/;

export function readTraceFile(file: string): JobTrace {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new UserInputError(`${file}: cannot read the trace: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  return parseTrace(text, file);
}

interface Field {
  readonly text: string;
  /** 1-based column of the field's first character. */
  readonly column: number;
}

export function parseTrace(text: string, file: string): JobTrace {
  const lines = text.split(/\r?\n/);
  if (lines.length === 0 || lines[0].trim() === "") {
    throw new UserInputError(`${file}:1:1: the trace is empty; expected a header line naming the columns ${REQUIRED.join(", ")} (and optionally queued_duration)`);
  }
  const header = splitLine(lines[0].replace(/^\uFEFF/, ""), file, 1).map((field) => field.text.trim().toLowerCase());
  const column = (name: string) => header.indexOf(name);
  const missing = REQUIRED.filter((name) => column(name) < 0);
  if (missing.length > 0) {
    throw new UserInputError(`${file}:1:1: the header lacks ${missing.join(", ")}; received ${JSON.stringify(lines[0])}, expected the columns ${REQUIRED.join(", ")} (and optionally queued_duration)`);
  }
  const [createdColumn, durationColumn, tagsColumn, queuedColumn] = [column("created_at"), column("duration"), column("tags"), column("queued_duration")];
  const builder = new JobTraceBuilder();
  const tagSetOfField = new Map<string, number>();
  for (let index = 1; index < lines.length; index += 1) {
    const line = lines[index];
    if (line.trim() === "") continue;
    const lineNumber = index + 1;
    const fields = splitLine(line, file, lineNumber);
    const field = (at: number, name: string): Field => {
      const found = fields[at];
      if (found === undefined) throw new UserInputError(`${file}:${lineNumber}:${line.length + 1}: ${name} is missing: the line has ${fields.length} field(s), the header ${header.length}`);
      return found;
    };
    const fail = (at: Field, name: string, expected: string): never => {
      throw new UserInputError(`${file}:${lineNumber}:${at.column}: ${name} ${JSON.stringify(at.text)} is not valid; expected ${expected}`);
    };
    const created = field(createdColumn, "created_at");
    const createdAt = parseTime(created.text.trim());
    if (createdAt === undefined) fail(created, "created_at", "an RFC 3339 time with an offset (2024-01-08T09:00:00+01:00) or Unix seconds");
    const durationField = field(durationColumn, "duration");
    const duration = parseSeconds(durationField.text.trim());
    if (duration === undefined) fail(durationField, "duration", 'seconds (330) or a Go duration ("5m30s")');
    // A trace repeats few tag fields a million times: each is split and interned once.
    const rawTags = field(tagsColumn, "tags").text;
    let tagSet = tagSetOfField.get(rawTags);
    if (tagSet === undefined) {
      tagSet = builder.internTags(rawTags.split(";").map((tag) => tag.trim()).filter((tag) => tag !== ""));
      tagSetOfField.set(rawTags, tagSet);
    }
    let queued = Number.NaN;
    if (queuedColumn >= 0 && fields[queuedColumn] !== undefined && fields[queuedColumn].text.trim() !== "") {
      const parsed = parseSeconds(fields[queuedColumn].text.trim());
      if (parsed === undefined) fail(fields[queuedColumn], "queued_duration", "seconds (12.5), or empty when unknown");
      queued = parsed!;
    }
    builder.addWithTagSet(createdAt!, duration!, tagSet, queued);
  }
  const trace = builder.build();
  if (trace.count === 0) throw new UserInputError(`${file}:2:1: the trace has a header but no jobs`);
  return trace;
}

/** Unix seconds of an RFC 3339 time with an offset, or of Unix seconds written as a number; undefined otherwise. */
export function parseTime(text: string): number | undefined {
  if (NUMBER.test(text)) return Number(text);
  if (!RFC3339.test(text)) return undefined;
  const ms = Date.parse(text.replace(" ", "T"));
  return Number.isNaN(ms) ? undefined : ms / 1000;
}

function parseSeconds(text: string): number | undefined {
  if (NUMBER.test(text)) return Number(text);
  return parseGoDurationSeconds(text);
}

/** One CSV line into fields (RFC 4180 quotes: "a,b" and "" for a quote), with each field's column. */
function splitLine(line: string, file: string, lineNumber: number): Field[] {
  if (!line.includes('"')) {
    const fields: Field[] = [];
    let start = 0;
    for (const text of line.split(",")) {
      fields.push({ text, column: start + 1 });
      start += text.length + 1;
    }
    return fields;
  }
  const fields: Field[] = [];
  let position = 0;
  while (position <= line.length) {
    const column = position + 1;
    if (line[position] === '"') {
      let text = "";
      let cursor = position + 1;
      for (;;) {
        const quote = line.indexOf('"', cursor);
        if (quote < 0) throw new UserInputError(`${file}:${lineNumber}:${column}: a quoted field is not closed; expected a closing quote (")`);
        text += line.slice(cursor, quote);
        if (line[quote + 1] === '"') {
          text += '"';
          cursor = quote + 2;
          continue;
        }
        cursor = quote + 1;
        break;
      }
      if (cursor < line.length && line[cursor] !== ",") throw new UserInputError(`${file}:${lineNumber}:${cursor + 1}: text after a quoted field; expected a comma`);
      fields.push({ text, column });
      position = cursor + 1;
    } else {
      const comma = line.indexOf(",", position);
      const end = comma < 0 ? line.length : comma;
      fields.push({ text: line.slice(position, end), column });
      position = end + 1;
    }
  }
  return fields;
}

/** The CSV a trace is written as (Unix seconds are written as RFC 3339 in UTC). */
export function formatTraceCsv(trace: JobTrace): string {
  const lines = ["created_at,duration,tags,queued_duration"];
  for (let index = 0; index < trace.count; index += 1) {
    const queued = trace.queuedDuration[index];
    lines.push(
      `${new Date(Math.round(trace.createdAt[index] * 1000)).toISOString()},${roundSeconds(trace.duration[index])},${trace.tagSets[trace.tagSet[index]].join(";")},${Number.isNaN(queued) ? "" : roundSeconds(queued)}`,
    );
  }
  return `${lines.join("\n")}\n`;
}

function roundSeconds(seconds: number): string {
  return String(Math.round(seconds * 1000) / 1000);
}
