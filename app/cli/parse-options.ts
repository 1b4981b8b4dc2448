/**
 * How a command turns its flags into options: once, at the start of its action, with zod.
 *
 * - The flags select one mode (`selectMode`); each mode is a strict object schema of the flags it takes
 *   (`modeFlags`), transformed into the command's options with `mode` as a discriminated union. A flag
 *   the selected mode does not take is refused, not ignored.
 * - What zod refuses becomes one UserInputError (exit 2, before any side effect) naming each option,
 *   the value received and what was expected: never zod's own dump.
 *
 * This module and the commands' option schemas (app/commands/<command>-options.ts) are the only ones of
 * the command layer that import zod. A command loads its schema with `require` inside its action, so
 * `--help`, `--version` and commander's own parsing do not pay for zod.
 */
import type { Command } from "commander";
import { z } from "zod";
import { UserInputError } from "../../lib/process/errors";

/** The key, added to the flags, that names the selected mode; no option has it (options are camelCase). */
export const MODE_KEY = "selected-mode";

type Flags = Readonly<Record<string, unknown>>;

/** Parses `flags` (commander's `opts()`) with `schema`; throws a UserInputError naming every refused option. */
export function parseOptions<Schema extends z.ZodType>(command: Command, schema: Schema, flags: Flags = command.opts()): z.output<Schema> {
  const parsed = schema.safeParse(flags, { error: expectation });
  if (parsed.success) return parsed.data;
  throw new UserInputError(describeIssues(command, flags, parsed.error.issues));
}

/**
 * A schema that selects one mode from the flags, then parses them with that mode's schema: a
 * discriminated union on MODE_KEY. `select` sees the flags as commander parsed them and decides
 * which mode wins when several are asked for (that mode's schema then refuses the others).
 */
export function selectMode<const Modes extends readonly [z.core.$ZodTypeDiscriminable, ...z.core.$ZodTypeDiscriminable[]]>(
  select: (flags: Flags) => string,
  modes: Modes,
) {
  return z.preprocess((flags) => ({ ...(flags as Flags), [MODE_KEY]: select(flags as Flags) }), z.discriminatedUnion(MODE_KEY, modes));
}

/**
 * The flags one mode takes: `shape`, and nothing else. `refuse` says why the other flags given do not
 * go with this mode, from their names as typed ("--destroy").
 */
export function modeFlags<const Mode extends string, Shape extends z.core.$ZodLooseShape>(mode: Mode, shape: Shape, refuse: (flags: readonly string[]) => string) {
  return z.strictObject(
    { [MODE_KEY]: z.literal(mode), ...shape } as { [MODE_KEY]: z.ZodLiteral<Mode> } & Shape,
    { error: (issue) => (issue.code === "unrecognized_keys" ? refuse(issue.keys.map(flagFor)) : undefined) },
  );
}

/** What an option expects, in the project's words, where a schema does not say it itself. */
function expectation(issue: z.core.$ZodRawIssue): string | undefined {
  if (issue.code === "invalid_value") return `must be ${listOf(issue.values.map((value) => String(value)), "or")}`;
  if (issue.code === "invalid_type") return issue.input === undefined ? "is required" : `must be ${issue.expected === "array" ? "a list" : `a ${issue.expected}`}`;
  return undefined;
}

/**
 * One line per problem. A schema's message says what is expected ("must be plan, apply or drift"); it is
 * put after the option's flag unless it names the flag itself, and followed by the value received. A
 * problem of a combination of options (an issue without a path) names its options in its message.
 */
export function describeIssues(command: Command, flags: Flags, issues: readonly z.core.$ZodIssue[]): string {
  return [...new Set(issues.map((issue) => describeIssue(command, flags, issue)))].join("\n  ");
}

function describeIssue(command: Command, flags: Flags, issue: z.core.$ZodIssue): string {
  const key = issue.path[0];
  if (typeof key !== "string") return issue.message;
  const flag = command.options.find((option) => option.attributeName() === key)?.long ?? flagFor(key);
  const message = namesFlag(issue.message, flag) ? issue.message : `${flag} ${issue.message}`;
  const value = flags[key];
  // A switch is given or not: "got true" would say nothing.
  return value === undefined || typeof value === "boolean" ? message : `${message}, got ${JSON.stringify(value)}`;
}

/** The flag a user types for an option's key, the inverse of commander's attributeName(): "applyMode" -> "--apply-mode". */
export function flagFor(key: string): string {
  return `--${key.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}`;
}

function namesFlag(message: string, flag: string): boolean {
  return new RegExp(`(^|[\\s(])${flag}(?![\\w-])`).test(message);
}

/** "a", "a or b", "a, b or c" (or with "and"). */
export function listOf(items: readonly string[], conjunction: "or" | "and"): string {
  return items.length <= 1 ? items.join("") : `${items.slice(0, -1).join(", ")} ${conjunction} ${items[items.length - 1]}`;
}

/** A refusal for `modeFlags`: "<intro> --a or --b". */
export function cannotCombineWith(intro: string): (flags: readonly string[]) => string {
  return (flags) => `${intro} ${listOf(flags, "or")}`;
}

/** A refusal for `modeFlags`: "--a and --b go with <what>". */
export function goWith(what: string): (flags: readonly string[]) => string {
  return (flags) => `${listOf(flags, "and")} ${flags.length === 1 ? "goes" : "go"} with ${what}`;
}
