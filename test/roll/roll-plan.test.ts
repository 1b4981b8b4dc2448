/** The roll a plan needs, and how it is named before anything is applied. */
import type { PlanJson } from "../../lib/terraform/plan-json";
import { describeRoll, describeRollForReview, rollPlanOf } from "../../lib/roll/roll-plan";
import { exampleModel, modelWith } from "../support/models";

const change = (address: string, actions: string[]) => ({ address, mode: "managed" as const, type: address.split(".")[0], name: address.split(".")[1], change: { actions: actions as never, before: {}, after: {} } });
const plan = (...changes: ReturnType<typeof change>[]): PlanJson => ({ format_version: "1.2", resource_changes: changes });
const slots: Record<string, string> = {
  "google_compute_instance_template.s0": "small-amd64/0",
  "google_compute_instance_template.s1": "small-amd64/1",
  "google_compute_instance_template.l0": "large-amd64/0",
  "google_compute_instance_template.l1": "large-amd64/1",
};
const slotOf = (address: string) => slots[address];

describe("rollPlanOf", () => {
  const model = exampleModel("cell-1");

  it("puts one slot of each shard in each wave, in slot order", () => {
    const roll = rollPlanOf(
      model,
      plan(
        change("google_compute_instance_template.s1", ["create", "delete"]),
        change("google_compute_instance_template.l0", ["update"]),
        change("google_compute_instance_template.s0", ["delete", "create"]),
        change("google_compute_instance_template.l1", ["update"]),
      ),
      slotOf,
    );
    expect(roll.waves).toEqual([
      [{ shard: "small-amd64", slot: 0 }, { shard: "large-amd64", slot: 0 }],
      [{ shard: "small-amd64", slot: 1 }, { shard: "large-amd64", slot: 1 }],
    ]);
    expect(roll.singleManagerShards).toEqual([]);
  });

  it("ignores new slots, unchanged templates and resources that are not manager templates", () => {
    const roll = rollPlanOf(
      model,
      plan(
        change("google_compute_instance_template.s0", ["create"]),
        change("google_compute_instance_template.s1", ["no-op"]),
        change("google_compute_instance_group_manager.w0", ["update"]),
      ),
      slotOf,
    );
    expect(roll.changing).toEqual([]);
    expect(describeRoll(roll)).toEqual([]);
  });

  it("warns about a shard with a single manager, which no order can keep serving", () => {
    const single = modelWith("cell-1", (draft) => {
      draft.shards[0].managers.count = 1;
    });
    const roll = rollPlanOf(single, plan(change("google_compute_instance_template.s0", ["update"])), slotOf);
    expect(describeRoll(roll)).toEqual([
      "roll: this change replaces 1 runner manager; provision applies it in 3 phases:",
      "  phase 1: everything except the replaced managers",
      "  phase 2: replace small-amd64 slot 0 (drain with SIGQUIT, then wait until the new manager is online)",
      "  phase 3: delete the previous instance templates, which the replaced VMs ran from until they were recreated",
      "  warning: shard small-amd64 has one manager; it takes no jobs while it drains and boots (set managers.count to 2 or more)",
    ]);
  });

  it("on Google Cloud, keeps the previous templates a stopped roll left until its last phase", () => {
    const roll = rollPlanOf(
      model,
      plan(change("google_compute_instance_template.s0_previous", ["delete"]), change("google_compute_instance_template.s1", ["create", "delete"])),
      slotOf,
    );
    // The previous template's delete replaces no manager: only slot 1 rolls.
    expect(roll.changing).toEqual([{ shard: "small-amd64", slot: 1 }]);
    expect(roll.previousTemplatesInState).toEqual(["small-amd64/0"]);
    expect(describeRoll(roll)[0]).toBe("roll: this change replaces 1 runner manager; provision applies it in 3 phases:");
  });

  it("on AWS, has no phase for previous templates (a launch template's new version deletes nothing)", () => {
    const roll = rollPlanOf(exampleModel("cell-2"), plan(change("google_compute_instance_template.s0", ["update"])), slotOf);
    expect(roll.keepsPreviousTemplates).toBe(false);
    expect(describeRoll(roll).some((line) => line.includes("previous instance templates"))).toBe(false);
  });
});

describe("describeRollForReview", () => {
  it("names the waves across shards, and shards that have a single manager", () => {
    expect(
      describeRollForReview([
        { shard: "a", replaced: [0, 2], total: 3 },
        { shard: "b", replaced: [0], total: 1 },
        { shard: "c", replaced: [], total: 2 },
      ]),
    ).toBe(
      "provision rolls the replaced managers one slot per shard at a time (wave 1: a slot 0, b slot 0; wave 2: a slot 2): each stopping manager gets SIGQUIT and up to maximum_timeout, " +
        "and the next wave waits until the new managers are online; b has one manager, which takes no jobs while it drains and boots",
    );
    expect(describeRollForReview([{ shard: "c", replaced: [], total: 2 }])).toBeUndefined();
  });
});
