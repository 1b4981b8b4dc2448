/**
 * Boots that several tests of a file only read: the files and calls of a VM's first boot (and of the
 * reboot after it) with the default stubs, fresh fake tokens and any extra env (a stub's setting, as
 * STUB_ARCH). Each payload and env boots once per test file, on
 * first use, in a sandbox kept until the file's tests end, so a test run alone still boots what it reads.
 * A test that changes the sandbox, or needs its own stubs, state or env, boots its own.
 */
import { randomBytes } from "node:crypto";
import { ScriptSandbox, type ScriptRun } from "./script-sandbox";

export interface SharedBoot {
  readonly sandbox: ScriptSandbox;
  /** The tokens the stores answered with (made up at run time, never committed). */
  readonly runnerToken: string;
  readonly accessToken: string;
  readonly first: ScriptRun;
}

export interface SharedReboot extends SharedBoot {
  /** The second boot, in the same sandbox with the same env: the VM rebooted. */
  readonly reboot: ScriptRun;
}

const boots = new Map<string, SharedBoot | SharedReboot>();

function boot(payload: string, reboots: boolean, extraEnv: Readonly<Record<string, string>>): SharedBoot | SharedReboot {
  const key = `${reboots ? "reboot" : "boot"}\n${JSON.stringify(extraEnv)}\n${payload}`;
  let shared = boots.get(key);
  if (!shared) {
    const sandbox = new ScriptSandbox();
    const runnerToken = `glrt-t1_${randomBytes(15).toString("base64url")}`;
    const accessToken = `ya29.${randomBytes(24).toString("base64url")}`;
    const env = { STUB_RUNNER_TOKEN: runnerToken, STUB_ACCESS_TOKEN: accessToken, ...extraEnv };
    const first = sandbox.run(payload, env);
    shared = reboots ? { sandbox, runnerToken, accessToken, first, reboot: sandbox.run(payload, env) } : { sandbox, runnerToken, accessToken, first };
    boots.set(key, shared);
  }
  return shared;
}

/** The first boot of `payload` (no reboot after it), with `env` added to the default stubs' env. */
export function firstBoot(payload: string, env: Readonly<Record<string, string>> = {}): SharedBoot {
  return boot(payload, false, env);
}

/** The first boot of `payload` and a reboot after it, in one sandbox. */
export function bootAndReboot(payload: string): SharedReboot {
  return boot(payload, true, {}) as SharedReboot;
}

afterAll(() => {
  for (const shared of boots.values()) shared.sandbox.dispose();
  boots.clear();
});
