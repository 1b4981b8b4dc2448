/**
 * The other rotation mode than the examples': cell-1 with a gitlab-runner release on the other side of
 * 19.2 (lib/model/rotation-mode.ts), so both ways a manager takes a new token run in real systemd.
 */
import { modelWith, exampleModel } from "../support/models";
import { LIVE_ROTATION_SINCE, rotationMode } from "../../lib/model/rotation-mode";
import { bootPayload, managerContainer, type BootResult, type Manager } from "./support/manager-boot";
import { describeTokenRotation } from "./support/token-rotation-checks";

const exampleVersion = exampleModel("cell-1").shards[0].managers.runner_version;
const otherVersion = rotationMode(exampleVersion) === "drain" ? LIVE_ROTATION_SINCE : "19.1.0";

describe(`Google manager of cell-1 with gitlab-runner ${otherVersion} booted in real systemd`, () => {
  const model = modelWith("cell-1", (variant) => {
    for (const shard of variant.shards) shard.managers.runner_version = otherVersion;
  });
  let manager: Manager;
  let boot: BootResult;

  beforeAll(async () => {
    manager = await managerContainer("rotation", model, model.shards[0]);
    boot = await bootPayload(manager);
  });

  afterAll(async () => {
    await manager?.container.dispose();
  });

  it("boots with the other rotation mode than the example's", () => {
    expect({ code: boot.code, journal: boot.code === 0 ? "" : boot.journal }).toEqual({ code: 0, journal: "" });
    expect(rotationMode(otherVersion)).not.toBe(rotationMode(exampleVersion));
  });

  describeTokenRotation("Secret Manager", () => manager, otherVersion);
});
