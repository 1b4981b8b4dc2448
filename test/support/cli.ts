/** Runs the compiled bin/* executables as a user would, capturing output and exit code. */
import { spawnSync } from "node:child_process";
import { join } from "node:path";

export const REPO_ROOT = join(__dirname, "..", "..");

export interface CliResult {
  readonly status: number;
  readonly stdout: string;
  readonly stderr: string;
}

export function runBin(
  name: "prepare" | "onboard" | "provision",
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string } = {},
): CliResult {
  const result = spawnSync(process.execPath, [join(REPO_ROOT, "bin", name), ...args], {
    cwd: options.cwd ?? REPO_ROOT,
    env: options.env ?? process.env,
    input: options.input ?? "",
    encoding: "utf8",
    timeout: 60_000,
  });
  if (result.error) throw result.error;
  return { status: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}

/** A stack trace line, which a user error must never show. */
export const STACK_TRACE_LINE = /^\s+at .+\(.+:\d+:\d+\)$/m;
