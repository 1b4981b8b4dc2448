/** Test helpers around the fake-terraform stand-in: a stack directory, a call log, a PATH holding only the fake. */
import { mkdtempSync, readFileSync, existsSync, mkdirSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const FAKE_TERRAFORM = join(__dirname, "fake-terraform.js");
export const FIXTURES_DIR = join(__dirname, "fixtures");
export const PLAN_FIXTURE = join(FIXTURES_DIR, "plan-cell-1.json");
export const RESOURCE_SHARDS_FIXTURE = join(FIXTURES_DIR, "resource-shards-cell-1.json");

/** Lets the fake's own FAKE_TF_* settings through the engine's environment allowlist (lib/terraform/engine-env.ts). */
export const FAKE_ENGINE_SETTINGS_PASS = { RUNNER_FLEET_ENGINE_ENV: "FAKE_TF_*" } as const;

export interface FakeCall {
  readonly argv?: string[];
  readonly cwd?: string;
  readonly env?: Record<string, string | undefined>;
  /** Every variable name the engine received. */
  readonly envNames?: string[];
  readonly signal?: string;
  /** Stateful mode (FAKE_TF_STATE): the addresses an apply updated or deleted, and those it created. */
  readonly applied?: string[];
  readonly created?: string[];
}

export interface FakeEngineWorkspace {
  readonly root: string;
  /** The stack directory the engine runs in. */
  readonly stackDir: string;
  readonly logFile: string;
  /** process.env plus FAKE_TF_LOG and the given extras; the fake's FAKE_TF_* settings pass the engine's environment allowlist. */
  env(extra?: Record<string, string>): NodeJS.ProcessEnv;
  calls(): FakeCall[];
}

export function fakeEngineWorkspace(): FakeEngineWorkspace {
  const root = mkdtempSync(join(tmpdir(), "fake-tf-"));
  const stackDir = join(root, "cdktf.out", "stacks", "cell-1");
  mkdirSync(stackDir, { recursive: true });
  const logFile = join(root, "calls.jsonl");
  return {
    root,
    stackDir,
    logFile,
    env: (extra = {}) => ({ ...process.env, FAKE_TF_LOG: logFile, ...FAKE_ENGINE_SETTINGS_PASS, ...extra }),
    calls: () => readFakeCalls(logFile),
  };
}

/** The calls the fake logged to `logFile` (FAKE_TF_LOG), in order; none when it was never run. */
export function readFakeCalls(logFile: string): FakeCall[] {
  if (!existsSync(logFile)) return [];
  return readFileSync(logFile, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as FakeCall);
}

/** A directory to use as the whole PATH: `node` plus the fake under each of the given engine names. */
export function pathWithFakeEngines(names: readonly string[]): string {
  const bin = mkdtempSync(join(tmpdir(), "fake-tf-bin-"));
  symlinkSync(process.execPath, join(bin, "node"));
  for (const name of names) symlinkSync(FAKE_TERRAFORM, join(bin, name));
  return bin;
}
