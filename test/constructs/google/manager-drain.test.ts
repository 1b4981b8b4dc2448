/**
 * Google Cloud managers drain before their group replaces them: the groups update opportunistically,
 * and the managers may read and update (recreate in) their own shard's manager groups only.
 */
import { managerName, zoneOfSlot } from "../../../lib/model/names";
import { exampleModel } from "../../support/models";
import { googleFleetOf, googleTestStack, resourcesOf, synth } from "./support";

function synthFleet() {
  const model = exampleModel("cell-1");
  const stack = googleTestStack();
  const fleet = googleFleetOf(stack, model);
  return { model, fleet, text: synth(stack) };
}

describe("Google Cloud manager drain", () => {
  test("THEN every manager group leaves replacement to its drained manager (OPPORTUNISTIC, no surge)", () => {
    const { model, text } = synthFleet();
    const names = new Set(model.shards.flatMap((shard) => Array.from({ length: shard.managers.count }, (_, slot) => managerName(model, shard, slot))));
    const groups = resourcesOf(text, "google_compute_instance_group_manager").filter((group) => names.has(group.name));
    expect(groups).toHaveLength(names.size);
    for (const group of groups) expect(group.update_policy).toMatchObject({ type: "OPPORTUNISTIC", replacement_method: "RECREATE", max_surge_fixed: 0 });
  });

  test("THEN each shard's managers get the fleeting role on their own manager groups only, not on their VMs", () => {
    const { model, text } = synthFleet();
    const cloud = model.cloud;
    if (cloud.provider !== "google") throw new Error("cell-1 is the Google Cloud example");
    const bindings = resourcesOf(text, "google_project_iam_member").filter((member) => member.condition?.title === "own-manager-groups-only");
    expect(bindings).toHaveLength(model.shards.length);
    for (const shard of model.shards) {
      const expected = Array.from({ length: shard.managers.count }, (_, slot) =>
        `resource.name == "projects/${cloud.project}/zones/${zoneOfSlot(cloud.zones, slot)}/instanceGroupManagers/${managerName(model, shard, slot)}"`,
      ).join(" || ");
      const binding = bindings.find((candidate) => candidate.condition.expression === expected);
      expect(binding).toBeDefined();
      expect(binding.condition.expression).not.toContain("/instances/");
      expect(binding.role).toMatch(/google_project_iam_custom_role\..*FleetingRole.*\.name/);
    }
  });
});
