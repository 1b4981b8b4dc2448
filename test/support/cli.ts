/** Runs the compiled bin/* executables as a user would, capturing output and exit code. */
import { spawn, spawnSync } from "node:child_process";
import { join } from "node:path";

export const REPO_ROOT = join(__dirname, "..", "..");

export interface CliResult {
  readonly status: number;
  readonly stdout: string;
  readonly stderr: string;
}

export function runBin(
  name: "prepare" | "onboard" | "provision" | "review" | "status",
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

/**
 * Like runBin, without blocking the event loop: needed when the test process
 * itself serves the stand-ins (fake GitLab) the command talks to.
 */
export function runBinAsync(
  name: "prepare" | "onboard" | "provision" | "review" | "status",
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<CliResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [join(REPO_ROOT, "bin", name), ...args], {
      cwd: options.cwd ?? REPO_ROOT,
      env: options.env ?? process.env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolvePromise({ status: code ?? -1, stdout, stderr });
    });
  });
}
