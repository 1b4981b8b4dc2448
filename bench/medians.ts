/** Wall time of fresh processes, and the median that the noisy, shared machine calls for. */
import { spawnSync, type SpawnSyncOptions } from "node:child_process";

/** Wall milliseconds of one process, from spawn to exit; throws when it fails. */
export function timeProcess(command: string, args: readonly string[], options: SpawnSyncOptions = {}): number {
  const started = process.hrtime.bigint();
  const result = spawnSync(command, args, { encoding: "utf8", ...options });
  const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.error) throw result.error;
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} exited ${result.status ?? result.signal}:\n${String(result.stderr)}`);
  return wallMs;
}

export function median(values: readonly number[]): number {
  if (values.length === 0) throw new Error("median of no values");
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}
