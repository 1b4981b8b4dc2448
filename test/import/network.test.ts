/**
 * The network docker+machine ran the machines in, as the imported model's network.existing
 * (app/import/machine-options.ts, app/import/imported-network.ts), read as the drivers read their
 * options (docker/machine drivers/amazonec2: the VPC and subnet, the zone "a" by default; drivers/google:
 * the subnetwork, in google-network or the default network "default").
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "yaml";
import { runInProcess, STACK_TRACE_LINE } from "../support/cli";
import { fixtureText, writeConfig } from "./support";

let root: string;
beforeEach(() => (root = mkdtempSync(join(tmpdir(), "import-network-"))));
afterEach(() => rmSync(root, { recursive: true, force: true }));

const AWS = fixtureText("docker-machine-aws.toml");
const GOOGLE = fixtureText("docker-machine-google.toml");
const AWS_NETWORK = ['      "amazonec2-vpc-id=vpc-0123456789abcdef0",\n', '      "amazonec2-subnet-id=subnet-0123456789abcdef0",\n'];

/** `import` of these config.toml texts (one file each) into cell-7, in this process; the model as data when one was written. */
async function imported(texts: readonly string[], cloud: "aws" | "google") {
  const configs = texts.map((text, index) => writeConfig(text, { dir: root, name: `manager-${index + 1}.toml` }).file);
  const out = join(root, "models", "cell-7.yaml");
  const run = await runInProcess("import", [...configs.flatMap((file) => ["--config", file]), "--cell", "cell-7", "--cloud", cloud, "--out", out]);
  expect(run.stderr).not.toMatch(STACK_TRACE_LINE);
  const text = run.status === 0 ? readFileSync(out, "utf8") : "";
  return { run, configs, out, text, model: run.status === 0 ? (parse(text) as Record<string, any>) : undefined };
}

/** The Google fixture with these options added to its MachineOptions. */
const googleWith = (...options: string[]) => GOOGLE.replace('      "google-zone=europe-west4-b",\n', `      "google-zone=europe-west4-b",\n${options.map((option) => `      "${option}",\n`).join("")}`);

describe("AWS", () => {
  it("keeps the VPC and subnet the machines ran in, and says the subnet must route egress itself", async () => {
    const { model, text } = await imported([AWS], "aws");
    expect(model!.network).toEqual({ existing: { network: "vpc-0123456789abcdef0", subnets: ["subnet-0123456789abcdef0"] } });
    expect(text).toContain("#   - network.existing: vpc-0123456789abcdef0, subnets subnet-0123456789abcdef0, where docker+machine ran the machines");
    expect(text).toContain("so it must already route their egress (a NAT)");
  });

  it("puts the subnet in the driver's default zone a when the options name no zone", async () => {
    const { model } = await imported([AWS.replace('      "amazonec2-zone=b",\n', "")], "aws");
    expect(model!.cloud.availability_zones).toEqual(["eu-west-1a"]);
    expect(model!.network.existing.subnets).toEqual(["subnet-0123456789abcdef0"]);
  });

  it("lists a VPC without its subnet, and a subnet without its VPC, saying why, and creates the network", async () => {
    for (const [dropped, why] of [
      [AWS_NETWORK[1], "MachineOptions[3] (amazonec2-vpc-id): a VPC without amazonec2-subnet-id: docker+machine took the zone's default subnet, which the file does not name"],
      [AWS_NETWORK[0], "MachineOptions[3] (amazonec2-subnet-id): a subnet without amazonec2-vpc-id: to keep it, set network.existing with its VPC"],
    ] as const) {
      const { model, text, run } = await imported([AWS.replace(dropped, "")], "aws");
      expect(model!.network).toBeUndefined();
      expect(text).toContain(why);
      expect(run.stderr).toContain(why);
      rmSync(join(root, "models"), { recursive: true, force: true });
    }
  });

  it("takes the subnets of two managers in one VPC, a zone each", async () => {
    const second = AWS.replace("subnet-0123456789abcdef0", "subnet-0fedcba9876543210").replace('"amazonec2-zone=b"', '"amazonec2-zone=c"').replace('name = "aws-autoscale"', 'name = "aws-autoscale-c"');
    const { model } = await imported([AWS, second], "aws");
    expect(model!.network.existing).toEqual({ network: "vpc-0123456789abcdef0", subnets: ["subnet-0123456789abcdef0", "subnet-0fedcba9876543210"] });
    expect(model!.cloud.availability_zones).toEqual(["eu-west-1b", "eu-west-1c"]);
  });

  it("refuses runners in two VPCs (a cell has one network), naming both, and writes nothing", async () => {
    const other = AWS.replace("vpc-0123456789abcdef0", "vpc-0aaaabbbbccccdddd");
    const { run, configs, out } = await imported([AWS, other], "aws");
    expect(run.status).toBe(2);
    expect(existsSync(out)).toBe(false);
    expect(run.stderr).toContain("the runners use different networks; a cell has one: import them into separate cells");
    expect(run.stderr).toContain(`${configs[0]}:4:1 runners[0] network = "vpc-0123456789abcdef0"; ${configs[1]}:4:1 runners[0] network = "vpc-0aaaabbbbccccdddd"`);
  });

  it("says a runner that names no network moves into the one the others name", async () => {
    const inDefaultVpc = AWS.replace(AWS_NETWORK[0], "").replace(AWS_NETWORK[1], "").replace('"amazonec2-zone=b"', '"amazonec2-zone=c"').replace('name = "aws-autoscale"', 'name = "default-vpc"');
    const { model, text, configs } = await imported([AWS, inDefaultVpc], "aws");
    expect(model!.network.existing.network).toBe("vpc-0123456789abcdef0");
    expect(text).toContain(`${configs[1]}:4:1 runners[0]: names no network (docker+machine used the account's default one); in the model it runs in vpc-0123456789abcdef0 too: check it`);
  });

  it("refuses a VPC id that is not one, without repeating it", async () => {
    const { run } = await imported([AWS.replace("vpc-0123456789abcdef0", "my-vpc")], "aws");
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("runners[0].machine.MachineOptions[3]: expected amazonec2-vpc-id=<an AWS VPC id such as vpc-0123456789abcdef0>, received another value");
    expect(run.stderr).not.toContain("my-vpc");
  });
});

describe("Google Cloud", () => {
  it("keeps the network and subnetwork the machines ran in", async () => {
    const { model } = await imported([googleWith("google-network=ci-network", "google-subnetwork=ci-runners")], "google");
    expect(model!.network).toEqual({ existing: { network: "ci-network", subnets: ["ci-runners"] } });
  });

  it("takes a subnetwork alone as one of the driver's default network, default", async () => {
    const { model } = await imported([googleWith("google-subnetwork=ci-runners")], "google");
    expect(model!.network).toEqual({ existing: { network: "default", subnets: ["ci-runners"] } });
  });

  it("lists a network without its subnetwork, saying why, and creates the network", async () => {
    const { model, text } = await imported([googleWith("google-network=ci-network")], "google");
    expect(model!.network).toBeUndefined();
    expect(text).toContain("(google-network): a network without google-subnetwork: docker+machine used the network's subnetwork of the region, which the file does not name");
  });

  it("refuses two subnetworks of one network: a cell on Google Cloud uses one", async () => {
    const second = googleWith("google-network=ci-network", "google-subnetwork=ci-runners-2").replace('name = "gce-autoscale"', 'name = "gce-autoscale-2"');
    const { run } = await imported([googleWith("google-network=ci-network", "google-subnetwork=ci-runners"), second], "google");
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("the runners use different subnetworks of one network; a cell on Google Cloud uses one: import them into separate cells: ");
    expect(run.stderr).toMatch(/runners\[0\] subnetwork = "ci-runners"; .*runners\[0\] subnetwork = "ci-runners-2"/);
  });
});
