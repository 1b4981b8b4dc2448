/**
 * The real-engine check of a Google Cloud stack: the stack with terraform_data
 * stand-ins for the Google provider (provider-stand-ins.ts), planned (which validates
 * first) by the real `terraform`, whose built-in provider needs no download and no network.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parsePlanJson, type PlanJson } from "../../../lib/terraform/plan-json";
import { googleSchemaHasAttribute } from "./google-schema";
import { withProviderStandIns, type StandInStack } from "./provider-stand-ins";
import { isolatedEnv, terraform } from "./terraform-cli";

export interface GoogleCheck {
  readonly standIns: StandInStack;
  /** `terraform show -json` of the stand-in plan. */
  readonly plan: PlanJson;
}

/**
 * Checks already made in this process, by the stand-in stack's text: tests that read different parts of
 * the same stack's plan share one (a plan costs terraform seconds). The same text plans the same way, so
 * a shared result is the result each would get; a failed check is not kept.
 */
const checks = new Map<string, Promise<GoogleCheck>>();

export async function checkGoogleStack(stackJson: Record<string, unknown>): Promise<GoogleCheck> {
  const standIns = withProviderStandIns(stackJson, "google", googleSchemaHasAttribute);
  const text = JSON.stringify(standIns.json, null, 2);
  let check = checks.get(text);
  if (!check) {
    check = planStandIns(standIns, text);
    checks.set(text, check);
    check.catch(() => checks.delete(text));
  }
  return check;
}

async function planStandIns(standIns: StandInStack, text: string): Promise<GoogleCheck> {
  const dir = mkdtempSync(join(tmpdir(), "runner-fleet-google-check-"));
  try {
    writeFileSync(join(dir, "stack.tf.json"), text);
    // Go's collector at half the rate of the other real-engine runs: the stand-in plan parses and
    // evaluates every boot script as a template, allocating ~2 GB for a 0.5 MB stack (GOGC=off shows
    // it), and spends ~10% less CPU (1.9 -> 1.7 s) for ~350 MB at its peak instead of ~240 MB.
    const env = isolatedEnv({ GOGC: "800" });
    // No `init`: a configuration with only terraform's built-in provider, no module and no backend
    // (withProviderStandIns drops the `terraform` block) has nothing to install, and plan runs without it.
    // No separate `validate`: `plan` walks the same validate graph before it plans.
    await terraform(["plan", "-input=false", "-no-color", "-out=stand-ins.tfplan"], dir, env);
    const shown = await terraform(["show", "-json", "stand-ins.tfplan"], dir, env);
    return { standIns, plan: parsePlanJson(shown.stdout) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
