/**
 * A command's real command line, parsed in-process: commander parses the arguments as bin/* would,
 * then either the action is replaced (to hand the parsed command to an options parser), or the whole
 * command runs through the one error handler (runCli) with its output captured.
 */
import type { Command } from "commander";
import { runCli } from "../../app/cli/run-command";
import { UserInputError } from "../../lib/process/errors";
import type { CliResult } from "./cli";

/** The command after commander has parsed `args`, its action replaced by nothing: what an options parser sees. */
export function parsedCommandLine(command: Command, args: readonly string[]): Command {
  command
    .exitOverride()
    .configureOutput({ writeOut: () => {}, writeErr: () => {} })
    .action(() => {});
  command.parse([...args], { from: "user" });
  return command;
}

/** The message of the UserInputError (exit 2) `parse` refuses `args` with; fails the test when it accepts them. */
export function refusalOf(parse: (args: readonly string[]) => unknown, args: readonly string[]): string {
  try {
    parse(args);
  } catch (error) {
    expect(error).toBeInstanceOf(UserInputError);
    return (error as Error).message;
  }
  throw new Error(`expected ${args.join(" ")} to be refused`);
}

/** Runs the command as bin/* does (same parser, same error handler), capturing what it writes and its exit code. */
export async function runCommandLine(command: Command, args: readonly string[]): Promise<CliResult> {
  let stdout = "";
  let stderr = "";
  const capture = (append: (text: string) => void) => (chunk: string | Uint8Array) => {
    append(typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8"));
    return true;
  };
  const out = jest.spyOn(process.stdout, "write").mockImplementation(capture((text) => (stdout += text)));
  const err = jest.spyOn(process.stderr, "write").mockImplementation(capture((text) => (stderr += text)));
  const exitCodeBefore = process.exitCode;
  process.exitCode = undefined;
  try {
    const status = await runCli(command, ["node", command.name(), ...args]);
    return { status, stdout, stderr };
  } finally {
    out.mockRestore();
    err.mockRestore();
    process.exitCode = exitCodeBefore;
  }
}
