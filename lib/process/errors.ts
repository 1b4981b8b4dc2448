/**
 * Typed errors, mapped to exit codes in one place (app/cli/run-command.ts):
 * - UserInputError: the user's model, flags or variables are wrong (exit 2). No side effects happened.
 * - OperationalError: the environment, an API, a secret store or an engine failed (exit 1).
 * Anything else is a bug and is shown with its stack.
 * A check that ran and found something to report (drift) is not an error: its command sets
 * process.exitCode to a code of its own (DRIFT_EXIT_CODE), which the handler passes through.
 */

/** `provision --drift`: a cell's infrastructure differs from its model. */
export const DRIFT_EXIT_CODE = 3;
export class UserInputError extends Error {
  readonly exitCode = 2;
  constructor(message: string) {
    super(message);
    this.name = "UserInputError";
  }
}

export class OperationalError extends Error {
  readonly exitCode = 1;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "OperationalError";
  }
}
