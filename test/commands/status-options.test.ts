/** status's command line, parsed once: the models, whether tokens are verified, a retry budget that reads as a duration. */
import { statusCommand } from "../../app/commands/status";
import { parseStatusOptions } from "../../app/commands/status-options";
import { STACK_TRACE_LINE } from "../support/cli";
import { parsedCommandLine, runCommandLine } from "../support/command-line";

const parse = (args: readonly string[]) => parseStatusOptions(parsedCommandLine(statusCommand(), args));

describe("status's options", () => {
  it("checks tokens unless --no-verify, and acts on every model unless some are named", () => {
    expect(parse([])).toEqual({ models: [], verifyTokens: true, readState: false });
    expect(parse(["--no-verify", "-m", "cell-1", "-m", "cell-2", "--models-dir", "m", "--retry-timeout", "30s", "--json"])).toEqual({
      models: ["cell-1", "cell-2"],
      modelsDir: "m",
      verifyTokens: false,
      retryTimeout: "30s",
      readState: false,
    });
  });

  it("reads remote states only with --read-state, through the engine named or found", async () => {
    expect(parse(["--read-state"])).toMatchObject({ readState: true });
    expect(parse(["--read-state", "--engine", "tofu"])).toMatchObject({ readState: true, engine: "tofu" });
    const result = await runCommandLine(statusCommand(), ["--read-state", "--engine", "terraformx", "--models-dir", "/nonexistent-models-dir"]);
    expect(result.status).toBe(2);
    expect(result.stderr).toBe("error: option '--engine <engine>' argument 'terraformx' is invalid. Allowed choices are terraform, tofu.\n");
    expect(result.stderr).not.toMatch(STACK_TRACE_LINE);
  });

  it("refuses a retry timeout that is not a duration: exit 2, the option, the value and what it expects, before GitLab is asked", async () => {
    const result = await runCommandLine(statusCommand(), ["--retry-timeout", "soon", "--models-dir", "/nonexistent-models-dir", "--json"]);
    expect(result.status).toBe(2);
    expect(result.stderr).toBe('error: --retry-timeout must be a Go duration such as "2m" or "90s", got "soon"\n');
    expect(result.stderr).not.toMatch(STACK_TRACE_LINE);
    expect(JSON.parse(result.stdout).exitCode).toBe(2);
  });
});
