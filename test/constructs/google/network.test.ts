import { ComputeFirewall } from "@cdktf/provider-google/lib/compute-firewall";
import { ComputeNetwork } from "@cdktf/provider-google/lib/compute-network";
import { ComputeRouterNat } from "@cdktf/provider-google/lib/compute-router-nat";
import { ComputeSubnetwork } from "@cdktf/provider-google/lib/compute-subnetwork";
import { FleetNetwork, type FleetNetworkProps, GOOGLE_HEALTH_CHECK_RANGES } from "../../../constructs/google/network";
import { UserInputError } from "../../../lib/process/errors";
import { googleTestStack, resourcesOf, synth, warningsOf } from "./support";

const SHARD = {
  namePrefix: "cell-9-small",
  ruleNames: {
    workerSsh: "cell-9-small-worker-ssh",
    managerMetrics: "cell-9-small-manager-metrics",
    managerSsh: "cell-9-small-manager-ssh",
    denyOtherIngress: "cell-9-small-deny-other-ingress",
  },
  managerTag: "cell-9-small-manager",
  workerTag: "cell-9-small-worker",
};

function networkOf(props: Partial<FleetNetworkProps> = {}) {
  const stack = googleTestStack();
  const network = new FleetNetwork(stack, "network", {
    name: "cell-9-runners",
    createdNames: { subnetwork: "cell-9-runners-europe-west4", router: "cell-9-runners-router", nat: "cell-9-runners-nat" },
    region: "europe-west4",
    ipCidrRange: "10.20.0.0/20",
    monitoringSourceRanges: ["10.8.0.0/16"],
    shards: [SHARD],
    ...props,
  });
  return { stack, network, json: synth(stack) };
}

describe("FleetNetwork", () => {
  test("creates a custom-mode network and a subnetwork with Private Google Access", () => {
    const { json } = networkOf();
    expect(json).toHaveResourceWithProperties(ComputeNetwork, { name: "cell-9-runners", auto_create_subnetworks: false });
    expect(json).toHaveResourceWithProperties(ComputeSubnetwork, {
      ip_cidr_range: "10.20.0.0/20",
      region: "europe-west4",
      private_ip_google_access: true,
    });
  });

  test("routes egress through Cloud NAT for the created subnetwork by default", () => {
    const { json, network } = networkOf();
    expect(network.natEnabled).toBe(true);
    expect(json).toHaveResourceWithProperties(ComputeRouterNat, {
      nat_ip_allocate_option: "AUTO_ONLY",
      source_subnetwork_ip_ranges_to_nat: "LIST_OF_SUBNETWORKS",
    });
  });

  test("creates no NAT and warns when nat is off", () => {
    const { json, stack } = networkOf({ nat: false });
    expect(resourcesOf(json, "google_compute_router_nat")).toHaveLength(0);
    expect(warningsOf(stack).join("\n")).toMatch(/Cloud NAT is off/);
  });

  test("workers accept SSH only from their shard's managers, by network tag", () => {
    const { json } = networkOf();
    expect(json).toHaveResourceWithProperties(ComputeFirewall, {
      name: "cell-9-small-worker-ssh",
      direction: "INGRESS",
      allow: [{ protocol: "tcp", ports: ["22"] }],
      source_tags: ["cell-9-small-manager"],
      target_tags: ["cell-9-small-worker"],
    });
  });

  test("managers accept metrics only from the monitoring ranges and Google health checkers", () => {
    const { json } = networkOf();
    expect(json).toHaveResourceWithProperties(ComputeFirewall, {
      name: "cell-9-small-manager-metrics",
      allow: [{ protocol: "tcp", ports: ["9252"] }],
      source_ranges: ["10.8.0.0/16", ...GOOGLE_HEALTH_CHECK_RANGES],
      target_tags: ["cell-9-small-manager"],
    });
    expect(GOOGLE_HEALTH_CHECK_RANGES).toEqual(["35.191.0.0/16", "130.211.0.0/22"]);
  });

  test("no allow rule is open to 0.0.0.0/0; the only rule naming it denies everything else", () => {
    const { json } = networkOf({ managerSshSourceRanges: ["35.235.240.0/20"] });
    const firewalls = resourcesOf(json, "google_compute_firewall");
    const allowRules = firewalls.filter((rule) => rule.allow);
    expect(allowRules.length).toBe(3);
    for (const rule of allowRules) expect(rule.source_ranges ?? []).not.toContain("0.0.0.0/0");
    const wideRules = firewalls.filter((rule) => (rule.source_ranges ?? []).includes("0.0.0.0/0"));
    expect(wideRules).toEqual([
      expect.objectContaining({ deny: [{ protocol: "all" }], priority: 2000, target_tags: [SHARD.managerTag, SHARD.workerTag] }),
    ]);
    expect(allowRules.every((rule) => rule.priority < 2000)).toBe(true);
  });

  test("uses an existing network and subnetwork by name without creating network, subnet or NAT", () => {
    const { json, network } = networkOf({
      ipCidrRange: undefined,
      createdNames: undefined,
      existingNetwork: "shared-vpc",
      existingSubnetwork: "runners-ew4",
    });
    expect(network.subnetwork).toBe("runners-ew4");
    expect(resourcesOf(json, "google_compute_network")).toHaveLength(0);
    expect(resourcesOf(json, "google_compute_subnetwork")).toHaveLength(0);
    expect(resourcesOf(json, "google_compute_router_nat")).toHaveLength(0);
    expect(json).toHaveResourceWithProperties(ComputeFirewall, { name: "cell-9-small-worker-ssh", network: "shared-vpc" });
  });

  test("fails when a firewall source is 0.0.0.0/0", () => {
    expect(() => networkOf({ monitoringSourceRanges: ["0.0.0.0/0"] })).toThrow(UserInputError);
    expect(() => networkOf({ monitoringSourceRanges: ["0.0.0.0/0"] })).toThrow(
      /monitoringSourceRanges\[0\] is "0\.0\.0\.0\/0"; expected a source range narrower than the whole internet/,
    );
    expect(() => networkOf({ managerSshSourceRanges: ["0.0.0.0/0"] })).toThrow(/managerSshSourceRanges\[0\]/);
  });

  test("fails when a monitoring range overlaps the created subnetwork, where the workers run job code", () => {
    expect(() => networkOf({ monitoringSourceRanges: ["10.20.8.0/24"] })).toThrow(
      /monitoringSourceRanges\[0\] is "10\.20\.8\.0\/24"; expected a range outside the workers' subnetwork 10\.20\.0\.0\/20/,
    );
    expect(() => networkOf({ monitoringSourceRanges: ["10.8.0.0/16", "10.16.0.0/12"] })).toThrow(/monitoringSourceRanges\[1\]/);
  });

  test("fails when a firewall source is not a CIDR block", () => {
    expect(() => networkOf({ monitoringSourceRanges: ["10.8.0.0"] })).toThrow(/expected an IPv4 CIDR block/);
  });

  test("fails when neither a range nor an existing network is given", () => {
    expect(() => networkOf({ ipCidrRange: undefined })).toThrow(/ipCidrRange is undefined; expected an IPv4 range/);
  });

  test("fails when a created network comes without the names of its parts", () => {
    expect(() => networkOf({ createdNames: undefined })).toThrow(
      "network: createdNames is undefined; expected the names of the created subnetwork, router and NAT.",
    );
  });

  test("fails when a firewall rule name is not a Compute Engine name", () => {
    const shard = { ...SHARD, ruleNames: { ...SHARD.ruleNames, workerSsh: "Cell_9 worker ssh" } };
    expect(() => networkOf({ shards: [shard] })).toThrow(/network: shards\[0\]\.ruleNames\.workerSsh is "Cell_9 worker ssh"; expected a Compute Engine name/);
  });

  test("fails when an existing network comes with names of parts it would create", () => {
    expect(() => networkOf({ ipCidrRange: undefined, existingNetwork: "shared-vpc", existingSubnetwork: "runners-ew4" })).toThrow(
      /network: createdNames is .*; expected no names of created parts when existingNetwork is set/,
    );
  });

  test("fails when an existing network comes without its subnetwork", () => {
    expect(() => networkOf({ ipCidrRange: undefined, existingNetwork: "shared-vpc" })).toThrow(/existingSubnetwork/);
  });

  test("fails when a shard's manager and worker tags are the same", () => {
    expect(() => networkOf({ shards: [{ ...SHARD, workerTag: SHARD.managerTag }] })).toThrow(
      /workerTag is "cell-9-small-manager"; expected a tag different from the managerTag/,
    );
  });
});
