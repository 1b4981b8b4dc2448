/**
 * The one place where errors become exit codes and messages:
 * 0 ok, 1 runtime/environment failure, 2 invalid input or usage, and a code a command sets
 * itself for a finding that is not a failure (3: drift found by `provision --drift`).
 * Commands never call process.exit themselves.
 */
import { CommanderError, type Command } from "commander";
import { OperationalError, UserInputError } from "../../lib/process/errors";
import { redactSecrets } from "../../lib/text/redact";
import { ModelValidationError } from "../../lib/model/issues";

export async function runCli(command: Command, argv: readonly string[] = process.argv): Promise<number> {
  command.exitOverride();
  command.configureOutput({ outputError: (text, write) => write(redactSecrets(text)) });
  const wantsJson = argv.includes("--json");
  try {
    await command.parseAsync([...argv]);
    return process.exitCode === undefined ? 0 : Number(process.exitCode);
  } catch (error) {
    return reportError(error, { json: wantsJson });
  }
}

/** Prints the error (also as JSON on stdout with `json`, for --json) and returns its exit code. */
export function reportError(error: unknown, output: { readonly json?: boolean } = {}): number {
  if (error instanceof CommanderError) {
    // Help and version output end here too, with exit code 0.
    return error.exitCode === 0 ? 0 : 2;
  }
  const exitCode = error instanceof UserInputError ? 2 : error instanceof OperationalError ? 1 : 1;
  const message =
    error instanceof UserInputError || error instanceof OperationalError
      ? error.message
      : `internal error (a bug, please report it): ${error instanceof Error ? (error.stack ?? error.message) : String(error)}${sourceMapsHint()}`;
  const safe = redactSecrets(message);
  process.stderr.write(`error: ${safe}\n`);
  if (output.json) {
    // A model's problems as prepare --json lists them: one object each (file, path, line, column, expected, received).
    const errors = error instanceof ModelValidationError ? { errors: error.issues } : {};
    process.stdout.write(redactSecrets(JSON.stringify({ ok: false, exitCode, error: safe, ...errors })) + "\n");
  }
  return exitCode;
}

/** bin/* run bundles: a trace names dist/bundle/*.js unless source maps are on. */
function sourceMapsHint(): string {
  return process.sourceMapsEnabled ? "" : "\n(run with NODE_OPTIONS=--enable-source-maps for a trace that names the TypeScript sources)";
}

/** Entry used by bin/*: runs the command and exits with its code once output is flushed and nothing is left to do. */
export function main(command: Command): void {
  // `./bin/prepare --json | head` closes the pipe early: that is the reader's choice, not a failure.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "EPIPE") process.exit(process.exitCode === undefined ? 0 : Number(process.exitCode));
      throw error;
    });
  }
  runCli(command).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.exitCode = reportError(error);
    },
  );
  // Once nothing is left to do (output written, children reaped, no timer or socket waiting), Node would
  // still tear the heap and the environment down before exiting, ~10 ms of a dry run that the process's
  // end does anyway: exit then, with the code set above.
  process.once("beforeExit", () => process.exit());
}
