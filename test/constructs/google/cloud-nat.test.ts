/**
 * Cloud NAT at production volume: dynamic port allocation (a busy VM grows past the 64 static ports that drop
 * SYNs as OUT_OF_RESOURCES), reserved addresses that allow-lists can hold on to, and an alert on drops.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ComputeRouterNat } from "@cdktf/provider-google/lib/compute-router-nat";
import { FleetNetwork, type FleetNetworkProps } from "../../../constructs/google/network";
import { NAT_DROPPED_PACKETS_METRIC } from "../../../constructs/google/fleet-monitoring";
import { UserInputError } from "../../../lib/process/errors";
import { parseModel } from "../../../lib/model/load";
import { exampleModel, MODELS_DIR, modelWith } from "../../support/models";
import { validatorPath } from "../../support/validators";
import { googleFleetOf, googleTestStack, resourcesOf, synth } from "./support";

function networkOf(props: Partial<FleetNetworkProps> = {}) {
  const stack = googleTestStack();
  const network = new FleetNetwork(stack, "network", {
    name: "cell-9-runners",
    createdNames: { subnetwork: "cell-9-runners-europe-west4", router: "cell-9-runners-router", nat: "cell-9-runners-nat" },
    region: "europe-west4",
    ipCidrRange: "10.20.0.0/20",
    ...props,
  });
  return { network, json: synth(stack) };
}

describe("Cloud NAT ports and addresses", () => {
  test("uses dynamic port allocation, 256 to 8192 ports per VM by default, endpoint-independent mapping off", () => {
    const { json } = networkOf();
    expect(json).toHaveResourceWithProperties(ComputeRouterNat, {
      enable_dynamic_port_allocation: true,
      enable_endpoint_independent_mapping: false,
      min_ports_per_vm: 256,
      max_ports_per_vm: 8192,
      nat_ip_allocate_option: "AUTO_ONLY",
    });
  });

  test("reserves the named addresses and uses only them (MANUAL_ONLY)", () => {
    const { json } = networkOf({ natAddressNames: ["cell-9-runners-nat-1", "cell-9-runners-nat-2"] });
    const addresses = resourcesOf(json, "google_compute_address");
    expect(addresses.map((address) => [address.name, address.address_type, address.region])).toEqual([
      ["cell-9-runners-nat-1", "EXTERNAL", "europe-west4"],
      ["cell-9-runners-nat-2", "EXTERNAL", "europe-west4"],
    ]);
    const [nat] = resourcesOf(json, "google_compute_router_nat");
    expect(nat.nat_ip_allocate_option).toBe("MANUAL_ONLY");
    expect(nat.nat_ips).toEqual([expect.stringMatching(/^\$\{google_compute_address\..*nat-1.*\.self_link\}$/), expect.stringMatching(/^\$\{google_compute_address\..*nat-2.*\.self_link\}$/)]);
  });

  test.each([
    [{ min: 48, max: 8192 }, "natPortsPerVm.min"],
    [{ min: 16, max: 8192 }, "natPortsPerVm.min"],
    [{ min: 256, max: 256 }, "natPortsPerVm.max"],
    [{ min: 256, max: 131072 }, "natPortsPerVm.max"],
  ])("fails when the ports are %j (Cloud NAT wants powers of two, 32 <= min < max <= 65536)", (ports, property) => {
    expect(() => networkOf({ natPortsPerVm: ports })).toThrow(UserInputError);
    expect(() => networkOf({ natPortsPerVm: ports })).toThrow(new RegExp(`${property.replace(".", "\\.")} is`));
  });

  test("fails when addresses are named without a NAT to use them", () => {
    expect(() => networkOf({ nat: false, natAddressNames: ["cell-9-runners-nat-1"] })).toThrow(/natAddressNames .*no NAT addresses without a Cloud NAT/);
  });
});

describe("the model's nat_ports and nat_addresses", () => {
  const text = readFileSync(join(MODELS_DIR, "cell-1.yaml"), "utf8");

  test("cell-1 reserves two addresses and sets its ports; the stack carries both", () => {
    const model = exampleModel("cell-1");
    expect(model.network).toMatchObject({ nat_addresses: 2, nat_ports: { min_per_vm: 256, max_per_vm: 8192 } });
    const stack = googleTestStack();
    googleFleetOf(stack, model);
    const json = synth(stack);
    expect(resourcesOf(json, "google_compute_address").map((address) => address.name)).toEqual(["cell-1-runners-nat-1", "cell-1-runners-nat-2"]);
    expect(resourcesOf(json, "google_compute_router_nat")[0]).toMatchObject({ min_ports_per_vm: 256, max_ports_per_vm: 8192, nat_ip_allocate_option: "MANUAL_ONLY" });
  });

  test("fails when a port count is not a power of two, at its line:col", () => {
    const broken = text.replace("min_per_vm: 256", "min_per_vm: 300");
    const line = broken.split("\n").findIndex((row) => row.includes("min_per_vm: 300")) + 1;
    expect(() => parseModel(broken, "cell-1.yaml")).toThrow(new RegExp(`cell-1\\.yaml:${line}:\\d+: network\\.nat_ports\\.min_per_vm: expected a power of two from 32 to 65536, received 300`));
  });

  test("fails when max_per_vm is not above min_per_vm", () => {
    expect(() => parseModel(text.replace("max_per_vm: 8192", "max_per_vm: 256"), "cell-1.yaml")).toThrow(/network\.nat_ports\.max_per_vm: expected max_per_vm greater than min_per_vm/);
  });

  test("warns when the reserved addresses cannot serve every VM the fleet may run", () => {
    // 204 VMs (2 x 61 + 2 x 41); one address at 1024 ports serves 63.
    const { warnings } = parseModel(text.replace("nat_addresses: 2", "nat_addresses: 1").replace("min_per_vm: 256", "min_per_vm: 1024"), "cell-1.yaml");
    expect(warnings).toEqual([expect.objectContaining({ path: ["network", "nat_addresses"], received: "1" })]);
    expect(warnings[0].expected).toContain("at least 4 addresses");
    expect(warnings[0].expected).toContain("the fleet may run 204 VMs");
  });

  test("AWS: nat_addresses is a Cloud NAT setting, and warns", () => {
    const model = modelWith("cell-2", () => undefined);
    expect(model.network.nat_addresses).toBe(0);
    const aws = readFileSync(join(MODELS_DIR, "cell-2.yaml"), "utf8").replace("  nat: per-zone\n", "  nat: per-zone\n  nat_addresses: 2\n");
    const { warnings } = parseModel(aws, "cell-2.yaml");
    expect(warnings.map((warning) => warning.path.join("."))).toContain("network.nat_addresses");
  });
});

describe("the NAT drop alert", () => {
  const stack = googleTestStack();
  const fleet = googleFleetOf(stack, exampleModel("cell-1"));
  const alert = fleet.monitoring!.natAlert!;

  test("watches the cell's NAT gateway for OUT_OF_RESOURCES drops", () => {
    expect(NAT_DROPPED_PACKETS_METRIC).toBe("compute_googleapis_com:nat_dropped_sent_packets_count");
    expect(alert.query).toContain(`gateway_name="${fleet.network.natName}"`);
    expect(alert.query).toContain('reason="OUT_OF_RESOURCES"');
    expect(alert.query).toContain('monitored_resource="nat_gateway"');
  });

  test("is quiet without drops or with other reasons, and fires on OUT_OF_RESOURCES drops (promtool test rules)", () => {
    const dir = mkdtempSync(join(tmpdir(), "nat-alert-"));
    try {
      const rules = join(dir, "rules.yml");
      writeFileSync(rules, JSON.stringify({ groups: [{ name: "nat", rules: [{ alert: "nat-drops", expr: alert.query, for: "0s" }] }] }));
      const series = (reason: string, values: string) => ({
        series: `${NAT_DROPPED_PACKETS_METRIC}{monitored_resource="nat_gateway",gateway_name="${fleet.network.natName}",router_id="123",reason="${reason}"}`,
        values,
      });
      const tests = {
        rule_files: [rules],
        evaluation_interval: "1m",
        tests: [
          { interval: "1m", input_series: [series("OUT_OF_RESOURCES", "0x20")], alert_rule_test: [{ eval_time: "15m", alertname: "nat-drops", exp_alerts: [] }] },
          { interval: "1m", input_series: [series("ENDPOINT_INDEPENDENCE_CONFLICT", "0+5x20")], alert_rule_test: [{ eval_time: "15m", alertname: "nat-drops", exp_alerts: [] }] },
          { interval: "1m", input_series: [series("OUT_OF_RESOURCES", "0x10 0+3x10")], alert_rule_test: [{ eval_time: "15m", alertname: "nat-drops", exp_alerts: [{ exp_labels: {} }] }] },
        ],
      };
      const file = join(dir, "tests.yml");
      writeFileSync(file, JSON.stringify(tests));
      const result = spawnSync(validatorPath("promtool"), ["test", "rules", file], { encoding: "utf8" });
      expect(result.stdout + result.stderr).toContain("SUCCESS");
      expect(result.status).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("is not created when the cell makes no NAT", () => {
    const noNat = googleFleetOf(googleTestStack(), modelWith("cell-1", (draft) => void (draft.network.nat = false)));
    expect(noNat.monitoring!.natAlert).toBeUndefined();
  });
});
