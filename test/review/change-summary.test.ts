import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ComputeInstance } from "@cdktf/provider-google/lib/compute-instance";
import { ComputeNetwork } from "@cdktf/provider-google/lib/compute-network";
import { GoogleProvider } from "@cdktf/provider-google/lib/provider";
import { TerraformOutput, TerraformStack, Testing } from "cdktf";
import { Construct } from "constructs";
import { OperationalError } from "../../lib/process/errors";
import { CHANGE_KINDS, emptyCounts, summarizePlan, summarizeSynth, type ChangeCounts, type ChangeKind } from "../../lib/review/change-summary";
import type { PlanJson, PlanResourceChange } from "../../lib/terraform/plan-json";
import { readResourceShards, shardLookup, RESOURCE_SHARDS_FILE } from "../../lib/review/stack-files";
import { PLAN_FIXTURE, RESOURCE_SHARDS_FIXTURE } from "../support/fake-terraform-workspace";

const fixturePlan = (): PlanJson => JSON.parse(readFileSync(PLAN_FIXTURE, "utf8"));
const fixtureShards = (): Record<string, string> => JSON.parse(readFileSync(RESOURCE_SHARDS_FIXTURE, "utf8"));

function stackDirWithShards(): string {
  const dir = mkdtempSync(join(tmpdir(), "stack-"));
  copyFileSync(RESOURCE_SHARDS_FIXTURE, join(dir, RESOURCE_SHARDS_FILE));
  return dir;
}

/** The expected kind of each action list, written out as a table (the code derives it by rules). */
const KIND_OF_ACTIONS: Record<string, ChangeKind | undefined> = {
  create: "add",
  update: "change",
  "delete,create": "replace",
  "create,delete": "replace",
  delete: "destroy",
  forget: "forget",
  "no-op": undefined,
  read: undefined,
};

/** Counts per shard straight from the fixture files, by table lookup. */
function expectedCountsByShard(plan: PlanJson, shards: Record<string, string>): Map<string | null, ChangeCounts> {
  const byShard = new Map<string | null, ChangeCounts>();
  for (const change of plan.resource_changes ?? []) {
    if (change.mode !== "managed") continue;
    const kind = KIND_OF_ACTIONS[change.change.actions.join(",")];
    if (!kind) continue;
    const shard = shards[change.address] ?? null;
    const counts = byShard.get(shard) ?? emptyCounts();
    counts[kind]++;
    byShard.set(shard, counts);
  }
  return byShard;
}

describe("summarizePlan", () => {
  it("counts changes per shard as the resource map assigns them", () => {
    const plan = fixturePlan();
    const summary = summarizePlan(plan, readResourceShards(stackDirWithShards()));

    const expected = expectedCountsByShard(plan, fixtureShards());
    expect(new Map(summary.byShard.map((group) => [group.shard, group.counts]))).toEqual(expected);
    expect(summary.source).toBe("plan");
    expect(summary.hasChanges).toBe(true);
  });

  it("adds shard counts up to the cell's counts, and type counts too", () => {
    const summary = summarizePlan(fixturePlan(), readResourceShards(stackDirWithShards()));

    for (const kind of CHANGE_KINDS) {
      expect(summary.byShard.reduce((sum, group) => sum + group.counts[kind], 0)).toBe(summary.counts[kind]);
      expect(summary.byType.reduce((sum, group) => sum + group.counts[kind], 0)).toBe(summary.counts[kind]);
    }
    expect(summary.resources).toHaveLength(CHANGE_KINDS.reduce((sum, kind) => sum + summary.counts[kind], 0));
  });

  it("lists cell-wide resources first, then shards by name", () => {
    const summary = summarizePlan(fixturePlan(), readResourceShards(stackDirWithShards()));

    expect(summary.byShard.map((group) => group.shard)).toEqual([null, "large-amd64", "small-amd64"]);
  });

  it("leaves out unchanged resources and data source reads", () => {
    const plan = fixturePlan();
    const summary = summarizePlan(plan, readResourceShards(stackDirWithShards()));

    const addresses = summary.resources.map((resource) => resource.address);
    const quiet = (plan.resource_changes ?? []).filter((change) => change.mode === "data" || change.change.actions.every((action) => action === "no-op" || action === "read"));
    expect(quiet.length).toBeGreaterThan(0);
    for (const change of quiet) expect(addresses).not.toContain(change.address);
  });

  it("marks a worker template whose machine type changes as replaced, with the attribute that forces it", () => {
    const summary = summarizePlan(fixturePlan(), readResourceShards(stackDirWithShards()));

    const template = summary.resources.find((resource) => resource.address.startsWith("google_compute_instance_template.small-amd64_WorkerTemplate0_"));
    expect(template).toMatchObject({
      kind: "replace",
      shard: "small-amd64",
      // id, name and self_link are recomputed by any replacement: not worth a reviewer's attention.
      attributes: [{ name: "machine_type", before: '"e2-standard-2"', after: '"n2d-standard-2"', forcesReplacement: true }],
    });
  });

  it("names a changed long attribute without its value", () => {
    const summary = summarizePlan(fixturePlan(), readResourceShards(stackDirWithShards()));

    const manager = summary.resources.find((resource) => resource.address.startsWith("google_compute_instance.small-amd64_Manager0_"));
    expect(manager?.kind).toBe("change");
    expect(manager?.attributes).toEqual([{ name: "metadata_startup_script" }]);
  });

  it("reports an attribute known only after apply", () => {
    const summary = summarizePlan(fixturePlan(), readResourceShards(stackDirWithShards()));

    const group = summary.resources.find((resource) => resource.address.startsWith("google_compute_instance_group_manager.small-amd64_WorkerGroup0_"));
    expect(group?.attributes).toEqual([{ name: "version", unknown: true }]);
  });

  it("never shows a sensitive value", () => {
    const change: PlanResourceChange = {
      address: "google_secret_manager_secret_version.small-amd64_Token_0A1B2C3D",
      mode: "managed",
      type: "google_secret_manager_secret_version",
      name: "small-amd64_Token_0A1B2C3D",
      change: { actions: ["update"], before: { secret_data: "old" }, after: { secret_data: "new" }, before_sensitive: { secret_data: true }, after_sensitive: { secret_data: true } },
    };

    const summary = summarizePlan({ format_version: "1.2", resource_changes: [change] }, () => "small-amd64");

    expect(summary.resources[0].attributes).toEqual([{ name: "secret_data", sensitive: true }]);
  });

  it("counts output changes but not unchanged outputs", () => {
    const summary = summarizePlan(fixturePlan(), () => undefined);

    expect(summary.outputs).toEqual([{ name: "large-amd64_cache_bucket", kind: "add" }]);
  });

  it("has no changes when every resource is unchanged", () => {
    const plan = fixturePlan();
    const quiet: PlanJson = {
      ...plan,
      resource_changes: plan.resource_changes?.map((change) => ({ ...change, change: { ...change.change, actions: ["no-op"] } })),
      output_changes: {},
    };

    const summary = summarizePlan(quiet, () => undefined);

    expect(summary.hasChanges).toBe(false);
    expect(summary.resources).toEqual([]);
    expect(summary.counts).toEqual(emptyCounts());
  });

  it("counts a resource forgotten by a removed block apart from destroyed ones", () => {
    const change: PlanResourceChange = {
      address: "google_storage_bucket.old-shard_CacheBucket_11111111",
      mode: "managed",
      type: "google_storage_bucket",
      name: "old-shard_CacheBucket_11111111",
      change: { actions: ["forget"], before: { name: "b" }, after: null },
    };

    const summary = summarizePlan({ format_version: "1.2", resource_changes: [change] }, () => undefined);

    expect(summary.counts).toMatchObject({ forget: 1, destroy: 0 });
  });

  it("finds the shard of an indexed instance by its resource's address", () => {
    const change: PlanResourceChange = {
      address: 'google_compute_instance.small-amd64_Manager_5E5E5E5E["a"]',
      mode: "managed",
      type: "google_compute_instance",
      name: "small-amd64_Manager_5E5E5E5E",
      index: "a",
      change: { actions: ["create"], before: null, after: {} },
    };

    const summary = summarizePlan({ format_version: "1.2", resource_changes: [change] }, shardLookup({ "google_compute_instance.small-amd64_Manager_5E5E5E5E": "small-amd64" }));

    expect(summary.resources[0].shard).toBe("small-amd64");
  });
});

describe("summarizeSynth", () => {
  function tinyStack() {
    const app = Testing.app();
    const stack = new TerraformStack(app, "cell-1");
    new GoogleProvider(stack, "google", { project: "acme-runners-cell-1" });
    const network = new ComputeNetwork(stack, "Network", { name: "cell-1-network", autoCreateSubnetworks: false });
    const shard = new Construct(stack, "small-amd64");
    const instance = (scope: Construct, id: string, count?: number) =>
      new ComputeInstance(scope, id, {
        name: id.toLowerCase(),
        machineType: "e2-standard-2",
        zone: "europe-west4-a",
        bootDisk: { initializeParams: { image: "ubuntu-os-cloud/ubuntu-2404-lts-amd64" } },
        networkInterface: [{ network: network.name }],
        ...(count === undefined ? {} : { count }),
      });
    const manager = instance(shard, "Manager0");
    const spares = instance(shard, "Spare", 2);
    new TerraformOutput(stack, "network_name", { value: network.name });
    const addressOf = (resource: ComputeInstance | ComputeNetwork) => `${resource.terraformResourceType}.${stack.getLogicalId(resource)}`;
    const shards = { [addressOf(manager)]: "small-amd64", [addressOf(spares)]: "small-amd64" };
    return { json: JSON.parse(Testing.synth(stack)), shards, addresses: { network: addressOf(network), manager: addressOf(manager), spares: addressOf(spares) } };
  }

  it("counts every synthesized resource as added, by shard", () => {
    const { json, shards, addresses } = tinyStack();

    const summary = summarizeSynth(json, shardLookup(shards));

    expect(summary.source).toBe("synth");
    expect(summary.resources.map((resource) => [resource.address, resource.shard, resource.kind])).toEqual([
      [addresses.network, null, "add"],
      [addresses.manager, "small-amd64", "add"],
      [`${addresses.spares}[0]`, "small-amd64", "add"],
      [`${addresses.spares}[1]`, "small-amd64", "add"],
    ]);
    expect(summary.byShard.map((group) => [group.shard, group.counts.add])).toEqual([
      [null, 1],
      ["small-amd64", 3],
    ]);
    expect(summary.outputs).toEqual([{ name: "network_name", kind: "add" }]);
  });

  it("treats every resource as cell-wide when the stack has no resource map", () => {
    const { json } = tinyStack();
    const emptyDir = mkdtempSync(join(tmpdir(), "stack-"));

    const summary = summarizeSynth(json, readResourceShards(emptyDir));

    expect(summary.byShard.map((group) => group.shard)).toEqual([null]);
  });
});

describe("readResourceShards", () => {
  it("fails when the resource map is not a map of shard names", () => {
    const dir = mkdtempSync(join(tmpdir(), "stack-"));
    writeFileSync(join(dir, RESOURCE_SHARDS_FILE), JSON.stringify({ "google_compute_instance.x": 3 }));

    expect(() => readResourceShards(dir)).toThrow(OperationalError);
    expect(() => readResourceShards(dir)).toThrow(`${join(dir, RESOURCE_SHARDS_FILE)}: expected an object mapping resource addresses to shard names`);
  });

  it("fails when the resource map is not JSON", () => {
    const dir = mkdtempSync(join(tmpdir(), "stack-"));
    writeFileSync(join(dir, RESOURCE_SHARDS_FILE), "{ not json");

    expect(() => readResourceShards(dir)).toThrow(`cannot read ${join(dir, RESOURCE_SHARDS_FILE)}`);
  });
});
