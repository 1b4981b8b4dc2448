/**
 * Machine types that do not exist are errors (exit 2): they fail only at apply, after the plan was
 * reviewed. The list is dated (machine-types.ts), so a shard may say `allow_unknown_machine_type: true`
 * for a type newer than the list; the finding then becomes a warning that says so.
 */
import type { CrossCheckFinding } from "./finding";
import { isKnownMachineType, MACHINE_TYPES_CHECKED_ON } from "./machine-types";
import type { RunnerModel } from "./schema";

const GOOGLE_PATTERN = /^[a-z][a-z0-9]*-[a-z0-9-]+$/;
const AWS_PATTERN = /^[a-z][a-z0-9-]*\.[a-z0-9-]+$/;

export function checkMachineTypes(model: RunnerModel): CrossCheckFinding[] {
  const { provider } = model.cloud;
  const cloudName = provider === "google" ? "Google Cloud machine types" : "EC2 instance types";
  return model.shards.flatMap((shard, index) =>
    (["managers", "workers"] as const).flatMap((role): CrossCheckFinding[] => {
      const machineType = shard[role].machine_type;
      // A name of the other cloud's shape is refused by cross-checks.ts with its own message.
      if (!(provider === "google" ? GOOGLE_PATTERN : AWS_PATTERN).test(machineType)) return [];
      if (isKnownMachineType(provider, machineType)) return [];
      const allowed = shard.allow_unknown_machine_type;
      return [
        {
          severity: allowed ? "warning" : "error",
          path: ["shards", index, role, "machine_type"],
          expected: allowed
            ? `one of the ${cloudName} on the list checked on ${MACHINE_TYPES_CHECKED_ON} (lib/model/machine-types.ts); accepted because allow_unknown_machine_type is true`
            : `one of the ${cloudName} that exist (families and sizes checked on ${MACHINE_TYPES_CHECKED_ON}, lib/model/machine-types.ts); for a type newer than the list, set allow_unknown_machine_type: true on the shard`,
          received: JSON.stringify(machineType),
        },
      ];
    }),
  );
}
