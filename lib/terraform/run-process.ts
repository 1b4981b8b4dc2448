/**
 * Runs one engine process: streams its output line by line (redacted), keeps
 * the last lines of each stream for error messages, and forwards SIGINT/SIGTERM
 * received by this process to the child so the engine can stop gracefully and
 * release its state lock.
 */
import { spawn } from "node:child_process";
import { redactSecrets } from "../text/redact";

export type OutputStream = "stdout" | "stderr";

export interface ProcessRunOptions {
  readonly executable: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  /** Receives every line of both streams, already redacted. */
  readonly onLine?: (line: string, stream: OutputStream) => void;
  /** Scrubs one line before anyone sees it. @default redactSecrets (GitLab token prefixes only) */
  readonly redact?: (line: string) => string;
  /**
   * Collect stdout in full instead of streaming it (for `show -json`, whose
   * output is one large JSON document that may hold sensitive values).
   * @default false
   */
  readonly captureStdout?: boolean;
  /** @default 20 */
  readonly tailLines?: number;
  /**
   * How long the process may run: then SIGTERM (terraform stops as on Ctrl-C and releases its lock),
   * and SIGKILL 10 s later. @default - no limit
   */
  readonly timeoutMs?: number;
}

export interface ProcessResult {
  /** null when the process ended by a signal. */
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  /** Full stdout when `captureStdout` was set, otherwise "". */
  readonly stdout: string;
  /** Last lines of each stream, redacted. */
  readonly stdoutTail: readonly string[];
  readonly stderrTail: readonly string[];
  /** The first signal this process received and forwarded while the child ran. */
  readonly interruptedBy?: NodeJS.Signals;
  /** Stopped because it ran past timeoutMs. */
  readonly timedOut?: boolean;
}

const FORWARDED_SIGNALS = ["SIGINT", "SIGTERM"] as const;

/** Rejects only when the process cannot be started (error.code ENOENT, EACCES, ...). */
export function runProcess(options: ProcessRunOptions): Promise<ProcessResult> {
  const tailSize = options.tailLines ?? 20;
  const redact = options.redact ?? redactSecrets;
  return new Promise((resolve, reject) => {
    const child = spawn(options.executable, [...options.args], {
      cwd: options.cwd,
      env: options.env,
      stdio: ["ignore", "pipe", "pipe"],
      // Its own process group: a Ctrl-C in the terminal reaches only us, and we
      // forward it once. Two SIGINTs make terraform abort without cleanup.
      detached: process.platform !== "win32",
    });

    let interruptedBy: NodeJS.Signals | undefined;
    const forwarders = FORWARDED_SIGNALS.map((signal) => {
      const forward = () => {
        interruptedBy ??= signal;
        child.kill(signal);
      };
      process.on(signal, forward);
      return () => process.off(signal, forward);
    });
    const stopForwarding = () => forwarders.forEach((remove) => remove());

    const tails: Record<OutputStream, string[]> = { stdout: [], stderr: [] };
    const captured: string[] = [];
    const emit = (stream: OutputStream, rawLine: string) => {
      const line = redact(rawLine.replace(/\r$/, ""));
      const tail = tails[stream];
      tail.push(line);
      if (tail.length > tailSize) tail.shift();
      options.onLine?.(line, stream);
    };
    const collect = (stream: OutputStream) => {
      let pending = "";
      const source = child[stream];
      source.setEncoding("utf8");
      source.on("data", (chunk: string) => {
        if (stream === "stdout" && options.captureStdout) {
          captured.push(chunk);
          return;
        }
        const lines = (pending + chunk).split("\n");
        pending = lines.pop() ?? "";
        lines.forEach((line) => emit(stream, line));
      });
      source.on("end", () => {
        if (pending) emit(stream, pending);
        pending = "";
      });
    };
    collect("stdout");
    collect("stderr");

    child.once("error", (error) => {
      stopForwarding();
      reject(error);
    });
    let timedOut = false;
    let killer: NodeJS.Timeout | undefined;
    const limit =
      options.timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            timedOut = true;
            child.kill("SIGTERM");
            killer = setTimeout(() => child.kill("SIGKILL"), 10_000);
          }, options.timeoutMs);
    // "close" comes after both streams ended, so every line has been emitted.
    child.once("close", (exitCode, signal) => {
      clearTimeout(limit);
      clearTimeout(killer);
      stopForwarding();
      resolve({
        exitCode,
        signal,
        stdout: captured.join(""),
        stdoutTail: tails.stdout,
        stderrTail: tails.stderr,
        interruptedBy,
        ...(timedOut ? { timedOut } : {}),
      });
    });
  });
}
