/**
 * Termination waits for the drain: every manager group holds a terminating instance in a lifecycle
 * hook for as long as the shard's longest job, and the managers may complete that hook on their own
 * groups and no others.
 */
import { RunnerManagerSlot } from "../../../constructs/aws/runner-manager-group";
import { FleetingIam } from "../../../constructs/aws/fleeting-iam";
import { managerName } from "../../../lib/model/names";
import type { RunnerModel } from "../../../lib/model/schema";
import { DRAIN_HOOK_NAME } from "../../../lib/contract/fleet-contract";
import { gracefulStopSeconds } from "../../../lib/render/graceful-stop";
import { exampleModel, modelWith } from "../../support/models";
import { awsFleetOf, awsTestStack, resourcesOf, statementWithSid, synthJson, type Json } from "./support";

function synthFleet(model: RunnerModel) {
  const stack = awsTestStack();
  awsFleetOf(stack, model);
  return synthJson(stack).json;
}

const managerGroups = (json: Json, model: RunnerModel) => {
  const names = new Set(model.shards.flatMap((shard) => Array.from({ length: shard.managers.count }, (_, slot) => managerName(model, shard, slot))));
  return Object.values(resourcesOf(json, "aws_autoscaling_group")).filter((group) => names.has(group.name));
};

describe("AWS manager drain on termination", () => {
  test("THEN every manager group has the termination hook from its creation, covering maximum_timeout", () => {
    const model = modelWith("cell-2", (draft) => {
      draft.shards[0].maximum_timeout = "1h";
    });
    const groups = managerGroups(synthFleet(model), model);
    const shard = model.shards[0];

    expect(groups).toHaveLength(shard.managers.count);
    for (const group of groups) {
      expect(group.initial_lifecycle_hook).toEqual([
        { name: DRAIN_HOOK_NAME, lifecycle_transition: "autoscaling:EC2_INSTANCE_TERMINATING", heartbeat_timeout: 3600 + 300 + 60, default_result: "CONTINUE" },
      ]);
    }
  });

  test("WHEN maximum_timeout and the margin exceed AWS's 2 h heartbeat cap THEN the hook uses the cap (the manager heartbeats)", () => {
    const model = exampleModel("cell-2");
    expect(gracefulStopSeconds(model.shards[0])).toBeGreaterThan(7200);
    for (const group of managerGroups(synthFleet(model), model)) expect(group.initial_lifecycle_hook[0].heartbeat_timeout).toBe(7200);
  });

  test("THEN the managers' role may complete and heartbeat the hooks of its own shard's manager groups only", () => {
    const model = exampleModel("cell-2");
    const json = synthFleet(model);
    for (const shard of model.shards) {
      const documents = Object.values(json.data.aws_iam_policy_document as Record<string, Json>);
      const names = Array.from({ length: shard.managers.count }, (_, slot) => managerName(model, shard, slot));
      const statement = documents
        .flatMap((doc) => doc.statement)
        .find((candidate: Json) => candidate.sid === "CompleteOwnDrainHooks" && candidate.resources.some((arn: string) => arn.endsWith(`/${names[0]}`)));
      expect(statement.actions).toEqual(["autoscaling:CompleteLifecycleAction", "autoscaling:RecordLifecycleActionHeartbeat"]);
      expect(statement.resources).toEqual(
        names.map((name) => expect.stringMatching(new RegExp(`^arn:aws:autoscaling:eu-west-1:.+:autoScalingGroup:\\*:autoScalingGroupName/${name}$`))),
      );
    }
  });

  test("WHEN a group is built alone THEN the default drain is 1 h plus the margin, and out-of-range values are refused", () => {
    const build = (drainTimeoutSeconds?: number) => {
      const stack = awsTestStack();
      return new RunnerManagerSlot(stack, "manager", {
        name: "cell-9-main-mgr-0",
        slot: 0,
        imageId: "ami-0123456789abcdef0",
        instanceType: "t3.medium",
        subnetIds: ["subnet-0123456789abcdef0"],
        securityGroupIds: ["sg-0123456789abcdef0"],
        instanceProfileArn: "arn:aws:iam::123456789012:instance-profile/x",
        userData: "#!/bin/bash\n",
        drainTimeoutSeconds,
      });
    };
    expect(build().drainTimeoutSeconds).toBe(3900);
    expect(() => build(7201)).toThrow("drainTimeoutSeconds is 7201; expected an integer from 30 to 7200.");
  });

  test("WHEN FleetingIam gets no manager groups THEN it grants no lifecycle action", () => {
    const stack = awsTestStack();
    new FleetingIam(stack, "iam", {
      roleName: "cell-9-main-runner-manager",
      region: "eu-west-1",
      accountId: "123456789012",
      workerGroups: [{ name: "w", arn: "arn:aws:autoscaling:eu-west-1:123456789012:autoScalingGroup:1:autoScalingGroupName/w" }],
    });
    expect(statementWithSid(synthJson(stack).json, "CompleteOwnDrainHooks")).toBeUndefined();
  });
});
