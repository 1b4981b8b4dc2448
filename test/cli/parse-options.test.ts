/**
 * The shared options parser: zod's refusals become one message per problem that names the option as
 * typed, the value received and what is expected, and a mode refuses the flags it does not take.
 */
import { Command, Option } from "commander";
import { z } from "zod";
import { cannotCombineWith, flagFor, goWith, listOf, modeFlags, parseOptions, selectMode } from "../../app/cli/parse-options";
import { parsedCommandLine, refusalOf } from "../support/command-line";

function exampleCommand(): Command {
  return new Command("example")
    .option("--apply-mode <mode>", "auto or manual", "auto")
    .option("--out <dir>", "where")
    .option("--fast", "a switch")
    .option("--slow", "another switch")
    .option("--extra <value>", "only with --slow")
    .addOption(new Option("--no-verify", "a negated switch"));
}

const schema = selectMode((flags) => (flags.slow ? "slow" : "fast"), [
  modeFlags(
    "fast",
    { applyMode: z.enum(["auto", "manual"], { error: "must be auto or manual" }), out: z.string().optional(), fast: z.boolean().optional(), verify: z.boolean() },
    goWith("--slow"),
  ).transform((flags) => ({ mode: { kind: "fast" as const, applyMode: flags.applyMode } })),
  modeFlags(
    "slow",
    { applyMode: z.enum(["auto", "manual"]), verify: z.boolean(), slow: z.literal(true), extra: z.string().regex(/^\d+$/, { error: "--extra must be digits" }).optional() },
    cannotCombineWith("--slow cannot be combined with"),
  ).transform((flags) => ({ mode: { kind: "slow" as const, extra: flags.extra } })),
]);

function parse(args: readonly string[]) {
  const command = parsedCommandLine(exampleCommand(), args);
  return parseOptions(command, schema);
}

const refusal = (args: readonly string[]): string => refusalOf(parse, args);

describe("parseOptions with selectMode", () => {
  it("returns the selected mode with its typed values", () => {
    expect(parse([])).toEqual({ mode: { kind: "fast", applyMode: "auto" } });
    expect(parse(["--apply-mode", "manual", "--fast"])).toEqual({ mode: { kind: "fast", applyMode: "manual" } });
    expect(parse(["--slow", "--extra", "42"])).toEqual({ mode: { kind: "slow", extra: "42" } });
  });

  it("names the option as typed, what it expects and the value received", () => {
    expect(refusal(["--apply-mode", "Manual"])).toBe('--apply-mode must be auto or manual, got "Manual"');
  });

  it("keeps a message that names its option itself", () => {
    expect(refusal(["--slow", "--extra", "4x"])).toBe('--extra must be digits, got "4x"');
  });

  it("refuses the flags the selected mode does not take, by their names as typed", () => {
    expect(refusal(["--extra", "1"])).toBe("--extra goes with --slow");
    expect(refusal(["--slow", "--fast", "--out", "dir"])).toBe("--slow cannot be combined with --fast or --out");
  });

  it("reports every problem, one per line, in the project's words where a schema does not give its own", () => {
    const message = refusal(["--slow", "--extra", "x", "--apply-mode", "later"]);
    expect(message.split("\n  ").sort()).toEqual(['--apply-mode must be auto or manual, got "later"', '--extra must be digits, got "x"']);
    expect(message).not.toMatch(/"code"|"path"|ZodError/);
  });
});

describe("flagFor and listOf", () => {
  it("turns an option's key back into its flag", () => {
    expect(["applyMode", "dryRun", "out"].map(flagFor)).toEqual(["--apply-mode", "--dry-run", "--out"]);
    expect(new Command().option("--apply-mode <m>").options[0].attributeName()).toBe("applyMode");
  });

  it("lists flags as a sentence", () => {
    expect(listOf(["--a"], "or")).toBe("--a");
    expect(listOf(["--a", "--b"], "and")).toBe("--a and --b");
    expect(listOf(["--a", "--b", "--c"], "or")).toBe("--a, --b or --c");
  });
});
