/**
 * Runs the real `terraform` binary for the real-engine tests, in an environment of its
 * own: no cloud credentials or Terraform settings leak in from the caller, no
 * checkpoint call goes out, and a failure throws with the engine's own words.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";

const run = promisify(execFile);

/** Environment variable naming the terraform binary. @default "terraform" on PATH */
export const TERRAFORM_BINARY_ENV = "RUNNER_FLEET_TERRAFORM";

export function terraformBinary(env: NodeJS.ProcessEnv = process.env): string {
  return env[TERRAFORM_BINARY_ENV] || "terraform";
}

/** The engine's environment: PATH and HOME only, plus what the caller adds (a CLI config file). */
export function isolatedEnv(extra: Readonly<Record<string, string>> = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
    HOME: process.env.HOME ?? "/tmp",
    TF_IN_AUTOMATION: "1",
    TF_INPUT: "0",
    // An empty CLI configuration unless the caller names one: the machine's ~/.terraformrc plays no part.
    TF_CLI_CONFIG_FILE: "/dev/null",
    ...ENGINE_PROCESS_SETTINGS,
    ...extra,
  };
}

/**
 * Settings of the engine's process that change how it runs, not what it computes. The project's
 * EngineDriver passes on only the variables an engine reads for its work (TF_*, the clouds'; see
 * lib/terraform/engine-env.ts): a test that runs the engine through it adds these itself (`addEnv`).
 */
export const ENGINE_PROCESS_SETTINGS: Readonly<Record<string, string>> = {
  // No call to HashiCorp's checkpoint service (there is no network here).
  CHECKPOINT_DISABLE: "1",
  // Go's collector runs four times less often (terraform and its providers are Go programs, and the
  // providers inherit this): the AWS plan's `plan` and `show -json` cost ~25% less CPU (12.5 s at
  // GOGC=100, 9.5 s here, three stacks) for ~450 MB at its peak instead of ~320 MB. It changes when
  // memory is freed, nothing terraform computes.
  GOGC: "400",
};

export interface TerraformRun {
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `terraform <args>` in `cwd`; throws with the command and its output when it fails. */
export async function terraform(args: readonly string[], cwd: string, env: NodeJS.ProcessEnv): Promise<TerraformRun> {
  try {
    const { stdout, stderr } = await run(terraformBinary(), [...args], { cwd, env, maxBuffer: 256 * 1024 * 1024 });
    return { stdout, stderr };
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(`terraform ${args.join(" ")} failed in ${cwd}:\n${failed.stderr || ""}${failed.stdout || ""}${failed.stderr || failed.stdout ? "" : failed.message}`);
  }
}
