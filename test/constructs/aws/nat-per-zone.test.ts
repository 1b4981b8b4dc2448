/**
 * `network.nat: per-zone` on AWS: a NAT gateway and an Elastic IP in every public subnet, and each zone's
 * private subnet routed through the NAT gateway of its own zone, so losing one zone leaves the others'
 * egress up. `true` keeps one NAT gateway for the VPC. prepare's checks run in this process, through the
 * path bin/prepare takes (runInProcess), with no engine on PATH: its toolchain check would start terraform
 * each time, and these cases are about the model (the check is covered in test/commands/prepare.test.ts).
 * The dry run runs the executable itself.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RunnerModel } from "../../../lib/model/schema";
import { runBin, runInProcess } from "../../support/cli";
import { MODELS_DIR, modelWith } from "../../support/models";
import { awsFleetOf, awsTestStack, resourcesOf, synthJson, type Json } from "./support";

function synthFleet(model: RunnerModel): Json {
  const stack = awsTestStack();
  awsFleetOf(stack, model);
  return synthJson(stack).json;
}

/** The logical id a "${type.id.attr}" reference points at. */
function target(reference: string, type: string): string {
  const match = new RegExp(`^\\$\\{${type}\\.([^.]+)\\.id\\}$`).exec(reference);
  if (!match) throw new Error(`${reference} is not a reference to a ${type}`);
  return match[1];
}

/** For every private subnet: its zone and the zone of the NAT gateway its default route uses. */
function egressByZone(json: Json): Array<{ privateZone: string; natZone: string; natAddress: string }> {
  const subnets = resourcesOf(json, "aws_subnet");
  const nats = resourcesOf(json, "aws_nat_gateway");
  const routes = Object.values(resourcesOf(json, "aws_route")).filter((route) => route.nat_gateway_id);
  const associations = Object.values(resourcesOf(json, "aws_route_table_association"));
  return routes.map((route) => {
    const table = target(route.route_table_id, "aws_route_table");
    const association = associations.find((candidate) => target(candidate.route_table_id, "aws_route_table") === table)!;
    const privateSubnet = subnets[target(association.subnet_id, "aws_subnet")];
    const nat = nats[target(route.nat_gateway_id, "aws_nat_gateway")];
    const natSubnet = subnets[target(nat.subnet_id, "aws_subnet")];
    expect(natSubnet.tags.Name).toContain("-public-");
    return { privateZone: privateSubnet.availability_zone, natZone: natSubnet.availability_zone, natAddress: target(nat.allocation_id, "aws_eip") };
  });
}

describe("AWS NAT per zone", () => {
  it("per-zone: one NAT gateway and Elastic IP per public subnet, each private subnet egressing through its own zone's", () => {
    const model = modelWith("cell-2", (draft) => {
      draft.network.nat = "per-zone";
    });
    const json = synthFleet(model);
    const zones = model.cloud.provider === "aws" ? model.cloud.availability_zones : [];
    expect(Object.keys(resourcesOf(json, "aws_nat_gateway"))).toHaveLength(zones.length);
    expect(Object.keys(resourcesOf(json, "aws_eip"))).toHaveLength(zones.length);
    const egress = egressByZone(json);
    expect(egress.map((entry) => entry.privateZone).sort()).toEqual([...zones].sort());
    for (const entry of egress) expect(entry.natZone).toBe(entry.privateZone);
    expect(new Set(egress.map((entry) => entry.natAddress)).size).toBe(zones.length);
  });

  it("true: one NAT gateway for every zone, as before", () => {
    const json = synthFleet(modelWith("cell-2", (draft) => void (draft.network.nat = true)));
    expect(Object.keys(resourcesOf(json, "aws_nat_gateway"))).toHaveLength(1);
    const egress = egressByZone(json);
    expect(egress).toHaveLength(3);
    expect(new Set(egress.map((entry) => entry.natZone)).size).toBe(1);
  });

  it("false: no NAT gateway", () => {
    const json = synthFleet(modelWith("cell-2", (draft) => void (draft.network.nat = false)));
    expect(resourcesOf(json, "aws_nat_gateway")).toEqual({});
  });

  describe("bin/prepare", () => {
    let dir: string;
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), "nat-"));
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    const writeModel = (name: "cell-1" | "cell-2", nat: string, extra = "") => {
      const file = join(dir, `${name}.yaml`);
      const text = readFileSync(join(MODELS_DIR, `${name}.yaml`), "utf8").replace(/^  nat: .*\n/m, "");
      writeFileSync(file, text.replace(/^network:\n/m, `network:\n  nat: ${nat}\n${extra}`));
      return file;
    };
    const NO_ENGINE_ENV = { ...process.env, PATH: "/usr/bin:/bin" };
    const prepareJson = (file: string) => runInProcess("prepare", ["--model", file, "--models-dir", dir, "--json"], { env: NO_ENGINE_ENV });
    const prepare = async (name: "cell-1" | "cell-2", nat: string, extra = "") => {
      const file = writeModel(name, nat, extra);
      return { file, result: await prepareJson(file) };
    };

    it("accepts per-zone on AWS and resolves it as written, with no NAT warning", async () => {
      const { result } = await prepare("cell-2", "per-zone");
      expect(result.status).toBe(0);
      const [model] = JSON.parse(result.stdout).models;
      expect(model.resolved.network.nat).toBe("per-zone");
      expect(model.warnings.filter((warning: { path: string[] }) => warning.path.join(".") === "network.nat")).toEqual([]);
    });

    it("warns about one NAT gateway for several zones on AWS, at the line of network.nat", async () => {
      const { file, result } = await prepare("cell-2", "true");
      expect(result.status).toBe(0);
      const warnings = JSON.parse(result.stdout).models[0].warnings.filter((warning: { path: string[] }) => warning.path.join(".") === "network.nat");
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatchObject({ file, severity: "warning", line: 20, column: 8, received: "true" });
      expect(warnings[0].expected).toContain("one NAT gateway in eu-west-1a serves all 3 zones");
    });

    it("does not warn about one NAT in a single zone (there is no other zone to lose)", async () => {
      const text = readFileSync(join(MODELS_DIR, "cell-2.yaml"), "utf8")
        .replace("availability_zones: [eu-west-1a, eu-west-1b, eu-west-1c]", "availability_zones: [eu-west-1a]")
        .replace(/^  nat: per-zone\n/m, "  nat: true\n");
      const file = join(dir, "cell-2.yaml");
      writeFileSync(file, text);
      const result = await prepareJson(file);
      expect(result.status).toBe(0);
      expect(JSON.parse(result.stdout).models[0].warnings.map((warning: { path: string[] }) => warning.path.join("."))).not.toContain("network.nat");
    });

    it("the dry run prints the single-NAT warning with file:line:col", () => {
      const file = writeModel("cell-2", "true");
      const result = runBin("provision", ["--model", file, "--models-dir", dir, "--dry-run", "--out", join(dir, "cdktf.out")]);
      expect(result.status).toBe(0);
      expect(result.stderr).toContain(`${file}:20:8: warning: network.nat`);
      expect(result.stderr).toContain("an outage of that zone cuts every manager off GitLab");
    }, 120_000);

    it("warns on Google Cloud, where Cloud NAT is regional and per-zone is the same as true", async () => {
      const { result } = await prepare("cell-1", "per-zone");
      expect(result.status).toBe(0);
      const [warning] = JSON.parse(result.stdout).models[0].warnings;
      expect(warning).toMatchObject({ path: ["network", "nat"], received: '"per-zone"' });
      expect(warning.expected).toContain("Cloud NAT is regional");
    });

    it("refuses anything but true, false or per-zone, naming the line", async () => {
      const { file, result } = await prepare("cell-2", "per-region");
      expect(result.status).toBe(2);
      const [issue] = JSON.parse(result.stdout).models[0].errors;
      expect(issue).toMatchObject({ file, path: ["network", "nat"], line: 20, column: 8, expected: 'true, false or "per-zone"', received: '"per-region"' });
    });
  });
});
