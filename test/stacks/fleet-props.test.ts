/**
 * The model -> props adapters: the constructs boot the files the synth rendered (handed in, not rendered
 * again), and the model's choices reach the props they decide.
 */
import type { RunnerModel } from "../../lib/model/schema";
import { renderCellFiles, type RenderedShardFiles } from "../../lib/render/rendered-files";
import { awsFleetProps } from "../../stacks/aws-fleet-props";
import { googleFleetProps } from "../../stacks/google-fleet-props";
import { exampleModel, modelWith } from "../support/models";

/** The model's rendered files, each replaced by a script naming its own path. */
function markedFiles(model: RunnerModel): RenderedShardFiles[] {
  const mark = (file: { path: string; template: string }) => ({ ...file, content: `#!/bin/bash\n# rendered once: ${file.path}\n` });
  return renderCellFiles(model).map((shard) => ({
    shard: shard.shard,
    managers: shard.managers.map((manager) => ({ configToml: mark(manager.configToml), startupScript: mark(manager.startupScript) })),
    workerStartupScript: mark(shard.workerStartupScript),
  }));
}

function googleProps(model: RunnerModel, rendered = renderCellFiles(model)) {
  if (model.cloud.provider !== "google") throw new Error("a Google Cloud model");
  return googleFleetProps({ ...model, cloud: model.cloud }, rendered);
}

function awsProps(model: RunnerModel, rendered = renderCellFiles(model)) {
  if (model.cloud.provider !== "aws") throw new Error("an AWS model");
  return awsFleetProps({ ...model, cloud: model.cloud }, rendered);
}

describe("googleFleetProps", () => {
  test("THEN every manager slot and worker group boots the file it is handed, not a fresh rendering", () => {
    const model = exampleModel("cell-1");
    const props = googleProps(model, markedFiles(model));
    props.shards.forEach((shard, index) => {
      const name = model.shards[index].name;
      expect(shard.name).toBe(name);
      expect(shard.managers.slots.map((slot) => slot.startupScript)).toEqual(
        shard.managers.slots.map((_, slot) => `#!/bin/bash\n# rendered once: ${name}/manager-${slot}/startup.sh\n`),
      );
      expect(shard.workers.startupScript).toBe(`#!/bin/bash\n# rendered once: ${name}/worker-startup.sh\n`);
    });
  });

  test("GIVEN the local secret store THEN no secret is granted and managers are not autohealed (a new VM would lack the token)", () => {
    const secretManager = googleProps(exampleModel("cell-1")).shards[0];
    expect(secretManager.iam.tokenSecretId).toEqual(expect.any(String));
    expect(secretManager.managers.autohealing).toBe(true);
    const local = googleProps(modelWith("cell-1", (m) => (m.secrets.store = "local"))).shards[0];
    expect(local.iam.tokenSecretId).toBeUndefined();
    expect(local.managers.autohealing).toBe(false);
  });

  test("GIVEN monitoring off THEN there are no monitoring props", () => {
    expect(googleProps(exampleModel("cell-1")).monitoring).toBeDefined();
    expect(googleProps(modelWith("cell-1", (m) => (m.monitoring.enabled = false))).monitoring).toBeUndefined();
  });
});

describe("awsFleetProps", () => {
  test("THEN every manager slot and worker group boots the file it is handed, not a fresh rendering", () => {
    const model = exampleModel("cell-2");
    const props = awsProps(model, markedFiles(model));
    props.shards.forEach((shard, index) => {
      const name = model.shards[index].name;
      expect(shard.managers.slots.map((slot) => slot.userData)).toEqual(
        shard.managers.slots.map((_, slot) => `#!/bin/bash\n# rendered once: ${name}/manager-${slot}/startup.sh\n`),
      );
      expect(shard.workers.userData).toBe(`#!/bin/bash\n# rendered once: ${name}/worker-startup.sh\n`);
    });
  });

  test("GIVEN the local secret store THEN the managers may read no parameter", () => {
    expect(awsProps(exampleModel("cell-2")).shards[0].iam.tokenParameterName).toEqual(expect.stringMatching(/\/token$/));
    expect(awsProps(modelWith("cell-2", (m) => (m.secrets.store = "local"))).shards[0].iam.tokenParameterName).toBeUndefined();
  });

  test("GIVEN monitoring off THEN there are no monitoring props and the managers ship no log", () => {
    const off = awsProps(modelWith("cell-2", (m) => (m.monitoring.enabled = false)));
    expect(off.monitoring).toBeUndefined();
    expect(off.shards[0].iam.logGroupName).toBeUndefined();
    expect(awsProps(exampleModel("cell-2")).monitoring?.shards[0].names.managerUnhealthyAlarms).toHaveLength(
      exampleModel("cell-2").shards[0].managers.count,
    );
  });
});
