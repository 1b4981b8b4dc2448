/**
 * Plans synthesized AWS stacks with the real provider and no network, in a temporary
 * workspace holding a copy of each stack as a module:
 * - an override file (`*_override.tf.json`, merged by Terraform over the stack) in each module
 *   relaxes the provider pin to the mirrored version and makes the provider skip every call
 *   that needs AWS (credentials, account id, metadata API); the root has a local backend;
 * - the project's own EngineDriver runs `init`, `plan -out` and `show -json`.
 * There is no separate `validate` before the plan: `plan` walks the same validate graph
 * first (TF_LOG=trace shows "Building and walking validate graph" and a
 * ValidateResourceConfig call per resource), and each terraform command spends seconds
 * loading the AWS provider's schema: hence one workspace for all the stacks.
 * The lock file pins the mirrored version and records no checksum (`lockedVersionOnly`).
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EngineDriver } from "../../../lib/terraform/engine";
import type { PlanJson } from "../../../lib/terraform/plan-json";
import { RESOURCE_SHARDS_FILE, STACK_JSON_FILE } from "../../../lib/review/stack-files";
import type { AwsProvider } from "./aws-provider";
import { ENGINE_PROCESS_SETTINGS, isolatedEnv, terraformBinary } from "./terraform-cli";

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

/** A stack to plan: its synthesized directory, planned as module `module` of one workspace. */
export interface StackToPlan {
  readonly module: string;
  readonly stackDir: string;
}

/**
 * `init`, `plan` (which validates first) and `show -json` of several stacks at once: each stack is a
 * module of one workspace, so the provider loads its schema once per command for all of them, not
 * once per stack. A stack's backend block is ignored in a module (terraform warns), which an offline
 * plan does not use anyway; its outputs are passed up as `<module>__<name>` so the plan lists them.
 * Returns each stack's plan as if it had been planned alone (`planOfModule`).
 */
export async function planAwsStacksOffline(stacks: readonly StackToPlan[], provider: AwsProvider): Promise<Map<string, PlanJson>> {
  const dir = mkdtempSync(join(tmpdir(), "runner-fleet-aws-plan-"));
  try {
    const { terraform: _backendAndPins, ...moduleOverride } = offlineOverride(provider);
    const outputs: Record<string, unknown> = {};
    for (const { module, stackDir } of stacks) {
      mkdirSync(join(dir, module));
      for (const file of [STACK_JSON_FILE, RESOURCE_SHARDS_FILE]) copyFileSync(join(stackDir, file), join(dir, module, file));
      // The pin relaxed in the module too (a module's constraint must admit the mirrored version).
      const override = { ...moduleOverride, terraform: { required_providers: { aws: { source: "hashicorp/aws", version: provider.version } } } };
      writeFileSync(join(dir, module, OFFLINE_OVERRIDE_FILE), JSON.stringify(override, null, 2));
      const stack = JSON.parse(readFileSync(join(stackDir, STACK_JSON_FILE), "utf8")) as { output?: Record<string, { sensitive?: boolean }> };
      for (const [name, output] of Object.entries(stack.output ?? {})) {
        outputs[`${module}__${name}`] = { value: `\${module.${module}.${name}}`, ...(output.sensitive ? { sensitive: true } : {}) };
      }
    }
    const root = {
      terraform: { backend: { local: { path: "terraform.tfstate" } }, required_providers: { aws: { source: "hashicorp/aws", version: provider.version } } },
      module: Object.fromEntries(stacks.map(({ module }) => [module, { source: `./${module}` }])),
      output: outputs,
    };
    writeFileSync(join(dir, "main.tf.json"), JSON.stringify(root, null, 2));

    writeFileSync(join(dir, LOCK_FILE), lockedVersionOnly(provider));
    // `-lockfile=readonly` (terraform's TF_CLI_ARGS_<command>): init installs what the lock names and leaves the lock as it is.
    const env = isolatedEnv({ TF_CLI_CONFIG_FILE: provider.cliConfigFile, TF_CLI_ARGS_init: "-lockfile=readonly" });
    // The driver passes on only what the engine reads for its work: the process settings are added (terraform-cli.ts).
    const driver = new EngineDriver({ engine: "terraform", executable: terraformBinary(), cwd: dir, env, addEnv: ENGINE_PROCESS_SETTINGS, color: false });
    await driver.init();
    const planned = await driver.plan({ out: "offline.tfplan" });
    const plan = await driver.showPlanJson(planned.planFile);
    return new Map(stacks.map(({ module }) => [module, planOfModule(plan, module)]));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

interface ModuleValues {
  readonly address?: string;
  readonly resources?: ReadonlyArray<{ readonly address: string }>;
}

/** One module's part of a plan, with the addresses and names it would have had as the root module. */
export function planOfModule(plan: PlanJson, module: string): PlanJson {
  const prefix = `module.${module}.`;
  const unprefixed = (address: string) => (address.startsWith(prefix) ? address.slice(prefix.length) : address);
  const moduleValues = ((plan.planned_values as { root_module?: { child_modules?: ModuleValues[] } }).root_module?.child_modules ?? []).find(
    (child) => child.address === `module.${module}`,
  );
  return {
    ...plan,
    resource_changes: (plan.resource_changes ?? [])
      .filter((change) => change.module_address === `module.${module}`)
      .map(({ module_address: _module, ...change }) => ({ ...change, address: unprefixed(change.address) })),
    output_changes: Object.fromEntries(
      Object.entries(plan.output_changes ?? {})
        .filter(([name]) => name.startsWith(`${module}__`))
        .map(([name, change]) => [name.slice(module.length + 2), change]),
    ),
    planned_values: { root_module: { resources: (moduleValues?.resources ?? []).map((resource) => ({ ...resource, address: unprefixed(resource.address) })) } },
  };
}

/**
 * A dependency lock that selects the mirrored version and records no checksum. Terraform checks the
 * installed provider against the lock's checksums before every command that starts it (`plan`,
 * `show -json`), which hashes the whole 700 MB binary each time (~0.45 s of CPU), and `init` spends
 * as much again checking the lock's checksums against the one it computes. The checksums guard a
 * download against tampering; the mirror here is a local directory, and with none recorded terraform
 * installs it "unauthenticated" and says so. What is planned is the same.
 */
function lockedVersionOnly(provider: AwsProvider): string {
  const version = JSON.stringify(provider.version);
  return `provider "registry.terraform.io/hashicorp/aws" {\n  version     = ${version}\n  constraints = ${version}\n}\n`;
}
