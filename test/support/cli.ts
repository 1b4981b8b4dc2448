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
  name: "prepare" | "onboard" | "provision" | "review" | "status" | "import" | "init" | "simulate" | "pipeline" | "gate",
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string; nodeArgs?: readonly string[] } = {},
): CliResult {
  const result = spawnSync(process.execPath, [...(options.nodeArgs ?? []), join(REPO_ROOT, "bin", name), ...args], {
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
  name: "prepare" | "onboard" | "provision" | "review" | "status" | "import" | "init" | "simulate" | "pipeline" | "gate",
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

type CommandName = "prepare" | "onboard" | "provision" | "review" | "status" | "import" | "init" | "simulate" | "pipeline" | "gate";

/** Each command's factory, loaded on first use: the one bin/<name> hands to the CLI entry. */
const COMMAND_FACTORIES: Readonly<Record<CommandName, () => import("commander").Command>> = {
  prepare: () => require("../../app/commands/prepare").prepareCommand(),
  onboard: () => require("../../app/commands/onboard").onboardCommand(),
  provision: () => require("../../app/commands/provision").provisionCommand(),
  review: () => require("../../app/commands/review").reviewCommand(),
  status: () => require("../../app/commands/status").statusCommand(),
  import: () => require("../../app/commands/import").importCommand(),
  init: () => require("../../app/commands/init").initCommand(),
  simulate: () => require("../../app/commands/simulate").simulateCommand(),
  pipeline: () => require("../../app/commands/pipeline").pipelineCommand(),
  gate: () => require("../../app/commands/gate").gateCommand(),
};

/**
 * Runs a command in this process, through the path bin/<name> takes (`runCli` on the command's
 * factory: parsing, the command's action, the one error handler and the exit code it maps to),
 * with stdout and stderr captured. For the many cases of one behaviour; a few `runBin` smoke
 * tests per command keep the executable itself covered. As under runBin, no stream is a terminal
 * (so nothing prompts). Runs one at a time: it swaps process.env, the working directory, the
 * output streams and process.exitCode while it runs.
 */
export async function runInProcess(
  name: CommandName,
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<CliResult> {
  const { runCli } = require("../../app/cli/run-command") as typeof import("../../app/cli/run-command");
  const saved = { env: process.env, cwd: process.cwd(), exitCode: process.exitCode, out: process.stdout.write, err: process.stderr.write };
  const restoreTty = notTerminals([process.stdin, process.stdout, process.stderr]);
  let stdout = "";
  let stderr = "";
  const capture =
    (append: (text: string) => void) =>
    (chunk: string | Uint8Array, encoding?: BufferEncoding | ((error?: Error | null) => void), callback?: (error?: Error | null) => void): boolean => {
      append(typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8"));
      const done = typeof encoding === "function" ? encoding : callback;
      if (done) process.nextTick(done);
      return true;
    };
  process.stdout.write = capture((text) => (stdout += text)) as typeof process.stdout.write;
  process.stderr.write = capture((text) => (stderr += text)) as typeof process.stderr.write;
  if (options.env) process.env = { ...options.env };
  if (options.cwd) process.chdir(options.cwd);
  process.exitCode = undefined;
  try {
    const status = await runCli(COMMAND_FACTORIES[name](), [process.execPath, join(REPO_ROOT, "bin", name), ...args]);
    return { status, stdout, stderr };
  } finally {
    process.stdout.write = saved.out;
    process.stderr.write = saved.err;
    process.env = saved.env;
    process.chdir(saved.cwd);
    process.exitCode = saved.exitCode;
    restoreTty();
  }
}

/** Makes each stream's isTTY false (as for a child process with piped streams); returns the undo. */
function notTerminals(streams: ReadonlyArray<NodeJS.ReadStream | NodeJS.WriteStream>): () => void {
  const saved = streams.map((stream) => Object.getOwnPropertyDescriptor(stream, "isTTY"));
  for (const stream of streams) Object.defineProperty(stream, "isTTY", { value: false, configurable: true, writable: true });
  return () =>
    streams.forEach((stream, index) => {
      const descriptor = saved[index];
      if (descriptor) Object.defineProperty(stream, "isTTY", descriptor);
      else delete (stream as { isTTY?: boolean }).isTTY;
    });
}
