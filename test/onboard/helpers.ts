/** Shared pieces of the onboard tests: a fake clock whose sleeps return at once, and output capture. */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { TOKEN_CHECK_SYSTEM_ID } from "../../lib/gitlab/verify-token";
import type { LoggedRequest } from "../support/fake-gitlab";

export interface FakeClock {
  readonly waits: number[];
  now(): number;
  sleep(ms: number): Promise<void>;
  random(): number;
}

/** Sleeping only moves the clock; `random` is fixed so backoff is predictable (half the ceiling). */
export function fakeClock(start = 1_700_000_000_000): FakeClock {
  let now = start;
  const waits: number[] = [];
  return {
    waits,
    now: () => now,
    sleep: async (ms) => {
      waits.push(ms);
      now += ms;
    },
    random: () => 0.5,
  };
}

/** Every file under `dir` with its content, for "the token is nowhere else" checks. */
export function filesUnder(dir: string): Array<{ file: string; text: string }> {
  const out: Array<{ file: string; text: string }> = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...filesUnder(path));
    else out.push({ file: path, text: readFileSync(path, "utf8") });
  }
  return out;
}

/**
 * Calls that change runners: every write but the stored-token check (POST /runners/verify
 * and the DELETE /runners/managers that removes the entry it records), which leaves nothing behind.
 */
export function runnerChanges(requests: readonly LoggedRequest[]): LoggedRequest[] {
  return requests.filter((request) => request.method !== "GET" && request.body.system_id !== TOKEN_CHECK_SYSTEM_ID);
}
