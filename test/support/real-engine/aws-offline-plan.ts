/**
 * Plans a synthesized AWS stack with the real provider and no network, in a temporary
 * copy of the stack directory:
 * - an override file (`*_override.tf.json`, merged by Terraform over the stack) relaxes
 *   the provider pin to the mirrored version, switches to a local backend, and makes the
 *   provider skip every call that needs AWS (credentials, account id, metadata API);
 * - the project's own EngineDriver runs `init`, `plan -out` and `show -json`.
 * There is no separate `validate` before the plan: `plan` walks the same validate graph
 * first (TF_LOG=trace shows "Building and walking validate graph" and a
 * ValidateResourceConfig call per resource), and each terraform command spends seconds
 * loading the AWS provider's schema. Where a plan would show nothing more (a stack whose
 * resources another test plans already), `validateAwsStackOffline` runs `validate` alone.
 * The lock file is computed once per provider binary (hashing it takes seconds) and
 * copied into every later workspace, so their `init` only links the mirrored provider.
 */
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdtempSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EngineDriver } from "../../../lib/terraform/engine";
import type { PlanJson } from "../../../lib/terraform/plan-json";
import { RESOURCE_SHARDS_FILE, STACK_JSON_FILE } from "../../../lib/review/stack-files";
import type { AwsProvider } from "./aws-provider";
import { isolatedEnv, terraform, terraformBinary } from "./terraform-cli";

export const OFFLINE_OVERRIDE_FILE = "runner_fleet_offline_override.tf.json";
const LOCK_FILE = ".terraform.lock.hcl";

/** The override that lets the real provider plan without AWS. */
export function offlineOverride(provider: AwsProvider): Record<string, unknown> {
  return {
    terraform: {
      backend: { local: { path: "terraform.tfstate" } },
      required_providers: { aws: { source: "hashicorp/aws", version: provider.version } },
    },
    provider: {
      aws: [
        {
          skip_credentials_validation: true,
          skip_requesting_account_id: true,
          skip_metadata_api_check: true,
          access_key: "AKIAIOSFODNN7EXAMPLE",
          secret_key: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
          // Checking it needs the account id, which is never requested.
          allowed_account_ids: null,
        },
      ],
    },
  };
}

export interface OfflinePlan {
  /** The temporary stack directory (removed by `dispose`). */
  readonly dir: string;
  readonly plan: PlanJson;
  dispose(): void;
}

/** `init` then `plan` (which validates first) and `show -json` of the saved plan. */
export async function planAwsStackOffline(stackDir: string, provider: AwsProvider): Promise<OfflinePlan> {
  return inOfflineWorkspace(stackDir, provider, async (dir, driver) => {
    const planned = await driver.plan({ out: "offline.tfplan" });
    const plan = await driver.showPlanJson(planned.planFile);
    return { dir, plan, dispose: () => rmSync(dir, { recursive: true, force: true }) };
  }, { keep: true });
}

/** `init` then `validate`; returns what validate printed. */
export async function validateAwsStackOffline(stackDir: string, provider: AwsProvider): Promise<string> {
  return inOfflineWorkspace(stackDir, provider, async (dir, _driver, env) => (await terraform(["validate", "-no-color"], dir, env)).stdout, { keep: false });
}

/** Runs `work` in an initialized temporary copy of the stack; the copy is removed on failure, and after `work` unless kept. */
async function inOfflineWorkspace<T>(
  stackDir: string,
  provider: AwsProvider,
  work: (dir: string, driver: EngineDriver, env: NodeJS.ProcessEnv) => Promise<T>,
  options: { keep: boolean },
): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), "runner-fleet-aws-plan-"));
  try {
    for (const file of [STACK_JSON_FILE, RESOURCE_SHARDS_FILE]) copyFileSync(join(stackDir, file), join(dir, file));
    writeFileSync(join(dir, OFFLINE_OVERRIDE_FILE), JSON.stringify(offlineOverride(provider), null, 2));
    const env = isolatedEnv({ TF_CLI_CONFIG_FILE: provider.cliConfigFile });
    const sharedLock = sharedLockFile(provider);
    if (existsSync(sharedLock)) copyFileSync(sharedLock, join(dir, LOCK_FILE));

    const driver = new EngineDriver({ engine: "terraform", executable: terraformBinary(), cwd: dir, env, color: false });
    await driver.init();
    if (!existsSync(sharedLock)) keepLockFile(join(dir, LOCK_FILE), sharedLock);
    const result = await work(dir, driver, env);
    if (!options.keep) rmSync(dir, { recursive: true, force: true });
    return result;
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

/** Keyed by the mirror and the binary (path, size, time): the lock hashes the mirror's directory, and a replaced binary needs a fresh one. */
function sharedLockFile(provider: AwsProvider): string {
  const { size, mtimeMs } = statSync(provider.binary);
  const key = createHash("sha256").update(`${provider.mirrorDir}:${provider.binary}:${size}:${mtimeMs}`).digest("hex").slice(0, 16);
  return join(tmpdir(), `runner-fleet-aws-${provider.version}-${key}.lock.hcl`);
}

/** Atomically, so a parallel test worker never copies half a file. */
function keepLockFile(from: string, to: string): void {
  const partial = `${to}.${process.pid}.partial`;
  copyFileSync(from, partial);
  renameSync(partial, to);
}
