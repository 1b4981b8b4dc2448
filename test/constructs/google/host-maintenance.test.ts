/**
 * on_host_maintenance per machine series: MIGRATE fails the apply on a series that cannot live-migrate
 * (Arm T2A managers were rendered with MIGRATE), so managers get MIGRATE only where the series supports it.
 */
import { hostMaintenancePolicy } from "../../../constructs/google/instance-template-parts";
import { exampleModel, modelWith } from "../../support/models";
import { googleFleetOf, googleTestStack, resourcesOf, synth } from "./support";

describe("host maintenance policy per machine series", () => {
  test.each([
    ["e2-standard-2", "MIGRATE"],
    ["n2d-standard-8", "MIGRATE"],
    ["n2-standard-4", "MIGRATE"],
    ["c3-standard-4", "MIGRATE"],
    ["t2d-standard-2", "MIGRATE"],
    ["t2a-standard-2", "TERMINATE"],
    ["h3-standard-88", "TERMINATE"],
    ["a2-highgpu-1g", "TERMINATE"],
    ["c3-highcpu-192-metal", "TERMINATE"],
    ["c4a-standard-4", "TERMINATE"],
  ])("%s: %s", (machineType, policy) => {
    expect(hostMaintenancePolicy(machineType)).toBe(policy);
  });

  const managerTemplates = (json: string) =>
    resourcesOf(json, "google_compute_instance_template").filter((template) => String(template.description).startsWith("GitLab runner manager"));

  test("cell-1's e2 managers live-migrate", () => {
    const stack = googleTestStack();
    googleFleetOf(stack, exampleModel("cell-1"));
    const templates = managerTemplates(synth(stack));
    expect(templates.length).toBe(4);
    for (const template of templates) expect(template.scheduling).toMatchObject({ on_host_maintenance: "MIGRATE", automatic_restart: true });
  });

  test("Arm T2A managers are rendered with TERMINATE, which T2A accepts", () => {
    const model = modelWith("cell-1", (draft) => {
      for (const shard of draft.shards) {
        shard.managers.machine_type = "t2a-standard-2";
        shard.workers.machine_type = "t2a-standard-4";
      }
    });
    const stack = googleTestStack();
    googleFleetOf(stack, model);
    const templates = managerTemplates(synth(stack));
    expect(templates.length).toBe(4);
    for (const template of templates) expect(template.scheduling).toMatchObject({ on_host_maintenance: "TERMINATE", automatic_restart: true });
  });
});
