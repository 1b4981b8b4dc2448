/**
 * A fresh Google Cloud project has the fleet's APIs off: the stack enables each one it calls, leaves it on
 * when the cell is destroyed, and makes every other resource wait for them (a resource planned in parallel
 * with its API's enablement fails with "API has not been used in project ... or it is disabled").
 */
import { Testing } from "cdktf";
import { Construct } from "constructs";
import { UserInputError } from "../../../lib/process/errors";
import { ProjectServices } from "../../../constructs/google/project-services";
import { exampleModel } from "../../support/models";
import { googleFleetOf, googleTestStack, synth } from "./support";

/** depends_on entries are "${type.id}" in cdktf's JSON. */
function servicesDependedOn(dependsOn: string[] | undefined): string[] {
  return (dependsOn ?? []).map((ref) => ref.replace(/^\$\{(.*)\}$/, "$1")).filter((ref) => ref.startsWith("google_project_service.")).sort();
}

type Resources = Record<string, Record<string, { depends_on?: string[]; [key: string]: unknown }>>;

describe("the APIs of a fresh project", () => {
  const stack = googleTestStack();
  googleFleetOf(stack, exampleModel("cell-1"));
  const resources = JSON.parse(synth(stack)).resource as Resources;
  const services = Object.entries(resources.google_project_service ?? {});

  test("enables every API the stack and the managers call, and none is disabled on destroy", () => {
    expect(services.map(([, service]) => service.service).sort()).toEqual([
      "cloudresourcemanager.googleapis.com",
      "compute.googleapis.com",
      "iam.googleapis.com",
      "iamcredentials.googleapis.com",
      "logging.googleapis.com",
      "monitoring.googleapis.com",
      "secretmanager.googleapis.com",
      "storage.googleapis.com",
    ]);
    for (const [, service] of services) {
      expect(service).toMatchObject({ project: "acme-runners-cell-1", disable_on_destroy: false, disable_dependent_services: false });
    }
  });

  test("every other resource depends on every enabled API", () => {
    const serviceRefs = services.map(([id]) => `google_project_service.${id}`).sort();
    const others = Object.entries(resources).filter(([type]) => type !== "google_project_service");
    expect(others.length).toBeGreaterThan(5);
    for (const [type, byId] of others) {
      for (const [id, resource] of Object.entries(byId)) {
        expect([`${type}.${id}`, servicesDependedOn(resource.depends_on)]).toEqual([`${type}.${id}`, serviceRefs]);
      }
    }
    // The services themselves wait for nothing: they are the first step of a fresh apply.
    for (const [, service] of services) expect(service.depends_on).toBeUndefined();
  });

  test("fails when a service name is not a googleapis.com service", () => {
    const scope = new Construct(Testing.app(), "scope");
    expect(() => new ProjectServices(scope, "services", { project: "p-123456", services: ["compute"] })).toThrow(UserInputError);
    expect(() => new ProjectServices(scope, "services2", { project: "p-123456", services: ["compute"] })).toThrow(/services is "compute"; expected a service name such as compute.googleapis.com/);
  });
});
