import { describeManagerChanges } from "../../lib/review/manager-changes";
import type { StackJson } from "../../lib/review/entry-change";
import { diffCell } from "../../lib/review/stack-diff";

const meta = (path: string) => ({ metadata: { path: `cell-9/fleet/${path}`, uniqueId: path.replace(/\//g, "_") } });

/** A Google stack with `slots` managers in shard spot: one template and one group per slot. */
function googleStack(slots: number, change: (stack: any) => void = () => {}): StackJson {
  const templates: Record<string, unknown> = {};
  const groups: Record<string, unknown> = {};
  for (let slot = 0; slot < slots; slot += 1) {
    templates[`tpl${slot}`] = { "//": meta(`shard-spot/managers/Template${slot}`), machine_type: "e2-standard-2", labels: { slot: String(slot) } };
    groups[`grp${slot}`] = {
      "//": meta(`shard-spot/managers/Group${slot}`),
      name: `cell-9-spot-mgr-${slot}`,
      zone: "europe-west4-a",
      update_policy: { type: "PROACTIVE" },
    };
  }
  const stack = { resource: { google_compute_instance_template: templates, google_compute_instance_group_manager: groups } };
  change(stack);
  return stack;
}

/** An AWS stack with two managers in shard spot: a launch template and an Auto Scaling group per slot. */
function awsStack(change: (stack: any) => void = () => {}): StackJson {
  const stack = {
    resource: {
      aws_launch_template: {
        lt0: { "//": meta("shard-spot/manager-0/launch-template"), user_data: "IyEvYmluL2Jhc2gK", tags: { team: "ci" } },
        lt1: { "//": meta("shard-spot/manager-1/launch-template"), user_data: "IyEvYmluL2Jhc2gK", tags: { team: "ci" } },
      },
      aws_autoscaling_group: {
        asg0: { "//": meta("shard-spot/manager-0/Resource"), name: "cell-9-spot-mgr-0", max_size: 1 },
        asg1: { "//": meta("shard-spot/manager-1/Resource"), name: "cell-9-spot-mgr-1", max_size: 1 },
      },
    },
  };
  change(stack);
  return stack;
}

const managersOf = (before: StackJson, after: StackJson) => diffCell("cell-9", before, after).managers;

describe("manager changes read from the stack diff", () => {
  it("Google: any instance template change replaces the VM of that slot", () => {
    const changes = managersOf(googleStack(2), googleStack(2, (stack) => (stack.resource.google_compute_instance_template.tpl1.machine_type = "e2-standard-4")));
    expect(changes).toEqual([{ shard: "spot", total: 2, replaced: [1], live: [], restarted: [], added: [], removed: [], reasons: ["instance template changed (machine_type)"] }]);
    expect(describeManagerChanges(changes[0])).toEqual({ what: "replaces 1 of 2 managers of shard spot", why: "instance template changed (machine_type)", stopsRunners: true });
  });

  it("Google: an update policy change of the group leaves the VM alone; a zone change does not", () => {
    const policy = googleStack(2, (stack) => (stack.resource.google_compute_instance_group_manager.grp0.update_policy.type = "OPPORTUNISTIC"));
    expect(managersOf(googleStack(2), policy)).toEqual([]);
    const zone = googleStack(2, (stack) => (stack.resource.google_compute_instance_group_manager.grp0.zone = "europe-west4-b"));
    expect(managersOf(googleStack(2), zone)[0]).toMatchObject({ replaced: [0], reasons: ["instance group changed (zone)"] });
  });

  it("AWS: new launch data (user_data) replaces the instance through the refresh; the template's own tags do not", () => {
    const userData = awsStack((stack) => {
      stack.resource.aws_launch_template.lt0.user_data = "IyEvYmluL2Jhc2ggLWUK";
      stack.resource.aws_launch_template.lt1.user_data = "IyEvYmluL2Jhc2ggLWUK";
    });
    expect(managersOf(awsStack(), userData)).toEqual([
      { shard: "spot", total: 2, replaced: [0, 1], live: [], restarted: [], added: [], removed: [], reasons: ["launch template changed (user_data)"] },
    ]);
    const tags = awsStack((stack) => (stack.resource.aws_launch_template.lt0.tags.team = "platform"));
    expect(managersOf(awsStack(), tags)).toEqual([]);
  });

  it("AWS: a group change outside its launch template (max_size) replaces nothing; a new group name does", () => {
    expect(managersOf(awsStack(), awsStack((stack) => (stack.resource.aws_autoscaling_group.asg1.max_size = 2)))).toEqual([]);
    const renamed = awsStack((stack) => (stack.resource.aws_autoscaling_group.asg1.name = "cell-9-spot-manager-1"));
    expect(managersOf(awsStack(), renamed)[0]).toMatchObject({ replaced: [1], reasons: ["Auto Scaling group changed (name)"] });
  });

  it("a slot that moves to a new address is replaced; a new slot is added, not a replacement", () => {
    const moved = googleStack(2, (stack) => {
      const templates = stack.resource.google_compute_instance_template;
      templates.tpl0_renamed = templates.tpl0;
      delete templates.tpl0;
    });
    expect(managersOf(googleStack(2), moved)[0]).toMatchObject({ replaced: [0], reasons: ["instance template recreated under a new address"] });

    const grown = managersOf(googleStack(2), googleStack(3));
    expect(grown).toEqual([{ shard: "spot", total: 3, replaced: [], live: [], restarted: [], added: [2], removed: [], reasons: [] }]);
    expect(describeManagerChanges(grown[0]).what).toBe("adds 1 manager to shard spot");
    expect(describeManagerChanges(managersOf(googleStack(3), googleStack(1))[0]).what).toBe("removes 2 managers from shard spot");
  });

  it("says nothing when managers are untouched", () => {
    expect(managersOf(googleStack(2), googleStack(2))).toEqual([]);
  });
});
