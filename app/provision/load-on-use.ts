/**
 * Onboarding (GitLab's client, locks) and the manager roll load only on the paths that use them: a dry
 * run or a plan never onboards, and their start-up is most of what a person waits for. Keep these
 * require() calls inside the functions: a top-level import would load them on every run.
 */
import type * as OnboardModule from "../commands/onboard";
import type * as ProvisionRollModule from "./provision-roll";

export function provisionRoll(): typeof ProvisionRollModule {
  return require("./provision-roll") as typeof ProvisionRollModule;
}

export function onboard(): typeof OnboardModule {
  return require("../commands/onboard") as typeof OnboardModule;
}
