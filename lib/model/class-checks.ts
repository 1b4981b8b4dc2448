/** The checks by class of mistake (issue 23), each in its own module; run on a model whose shape is valid. */
import { checkAddresses } from "./address-checks";
import { checkCapacity } from "./capacity-checks";
import { checkDuplicates } from "./duplicate-checks";
import { checkDurations } from "./duration-checks";
import type { CrossCheckFinding } from "./finding";
import { checkIsolation } from "./isolation-checks";
import { checkMachineTypes } from "./machine-type-checks";
import type { RunnerModel } from "./schema";
import { checkInstanceUrls } from "./url-checks";
import { checkRunnerVersions } from "./version-checks";

export function classChecks(model: RunnerModel): CrossCheckFinding[] {
  return [
    ...checkInstanceUrls(model),
    ...checkAddresses(model),
    ...checkRunnerVersions(model),
    ...checkMachineTypes(model),
    ...checkCapacity(model),
    ...checkIsolation(model),
    ...checkDuplicates(model),
    ...checkDurations(model),
  ];
}
