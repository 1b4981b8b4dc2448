/**
 * Machine types that do not exist are errors (exit 2): they fail only at apply, after the plan was
 * reviewed. The table is dated (data/machine-types.json, lib/model/machine-types.ts), so a shard may say
 * `allow_unknown_machine_type: true` for a type newer than it; the finding then becomes a warning that
 * says so. Each finding names the nearest types that exist: the family's sizes around a size that is
 * not offered (n2d-standard-3: n2d-standard-2 or n2d-standard-4), or the type a typo meant (m7i.larg:
 * m7i.large).
 */
import type { CrossCheckFinding } from "./finding";
import { MACHINE_TYPES_CHECKED_ON, machineTypeVerdict } from "./machine-types";
import type { RunnerModel } from "./schema";

const GOOGLE_PATTERN = /^[a-z][a-z0-9]*-[a-z0-9-]+$/;
const AWS_PATTERN = /^[a-z][a-z0-9-]*\.[a-z0-9-]+$/;

export function checkMachineTypes(model: RunnerModel): CrossCheckFinding[] {
  const { provider } = model.cloud;
  const cloudName = provider === "google" ? "Google Cloud machine types" : "EC2 instance types";
  const unit = provider === "google" ? "series" : "family";
  return model.shards.flatMap((shard, index) =>
    (["managers", "workers"] as const).flatMap((role): CrossCheckFinding[] => {
      const machineType = shard[role].machine_type;
      // A name of the other cloud's shape is refused by cross-checks.ts with its own message.
      if (!(provider === "google" ? GOOGLE_PATTERN : AWS_PATTERN).test(machineType)) return [];
      const verdict = machineTypeVerdict(provider, machineType);
      if (verdict.kind === "known") return [];
      const what =
        verdict.kind === "unknown-size"
          ? `one of the ${cloudName} that exist: the ${unit} ${verdict.family} has no such size`
          : `one of the ${cloudName} that exist: no ${unit} ${verdict.family} on the list`;
      const suggestion = verdict.suggestions.length > 0 ? `; did you mean ${verdict.suggestions.join(" or ")}?` : "";
      const table = `data/machine-types.json, checked on ${MACHINE_TYPES_CHECKED_ON}`;
      const allowed = shard.allow_unknown_machine_type;
      return [
        {
          severity: allowed ? "warning" : "error",
          path: ["shards", index, role, "machine_type"],
          expected: allowed
            ? `${what} (${table})${suggestion}; accepted because allow_unknown_machine_type is true`
            : `${what} (${table})${suggestion}; for a type newer than the list, set allow_unknown_machine_type: true on the shard`,
          received: JSON.stringify(machineType),
        },
      ];
    }),
  );
}
