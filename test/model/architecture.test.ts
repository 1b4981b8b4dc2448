/**
 * arm64: Graviton and Arm machine types boot arm64 images, connect to arm64 workers and install the
 * runner for arm64; a shard that mixes architectures, or an image of the other architecture, is refused.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { parse as parseToml } from "smol-toml";
import { Testing, TerraformStack } from "cdktf";
import { AwsProvider } from "@cdktf/provider-aws/lib/provider";
import { GoogleProvider } from "@cdktf/provider-google/lib/provider";
import { imageArchitecture, machineArchitecture } from "../../lib/model/architecture";
import { renderConfigToml } from "../../lib/render/manager-files";
import { expectSucceeded, managerPayload, ScriptSandbox } from "../render/support/script-sandbox";
import { runBin, STACK_TRACE_LINE } from "../support/cli";
import { awsFleetOf } from "../constructs/aws/support";
import { googleFleetOf } from "../constructs/google/support";
import { modelWith } from "../support/models";
import { BASE_MODEL } from "./invalid-cases";

describe("machine type architectures", () => {
  it.each(["t4g.medium", "m7g.large", "c7g.xlarge", "r8g.large", "m8g.2xlarge", "c7gn.large", "m6gd.large", "im4gn.large", "a1.large", "hpc7g.4xlarge"])(
    "AWS %s is arm64 (Graviton)",
    (type) => expect(machineArchitecture("aws", type)).toBe("arm64"),
  );
  it.each(["t3.medium", "m7i.large", "c6a.xlarge", "g4dn.xlarge", "m5zn.large", "r7iz.large"])("AWS %s is amd64", (type) =>
    expect(machineArchitecture("aws", type)).toBe("amd64"),
  );
  it.each(["t2a-standard-2", "c4a-standard-4", "n4a-standard-2"])("Google %s is arm64", (type) => expect(machineArchitecture("google", type)).toBe("arm64"));
  it.each(["e2-standard-2", "n2d-standard-8", "c3-standard-4", "t2d-standard-1"])("Google %s is amd64", (type) =>
    expect(machineArchitecture("google", type)).toBe("amd64"),
  );
  it("reads an image's architecture from its name, and none from an AMI id", () => {
    expect(imageArchitecture("projects/ubuntu-os-cloud/global/images/family/ubuntu-2404-lts-arm64")).toBe("arm64");
    expect(imageArchitecture("resolve:ssm:/aws/service/canonical/ubuntu/server/24.04/stable/current/amd64/hvm/ebs-gp3/ami-id")).toBe("amd64");
    expect(imageArchitecture("ami-0123456789abcdef0")).toBeUndefined();
  });
});

const armAws = modelWith("cell-2", (m) => {
  m.shards[0].managers.machine_type = "t4g.medium";
  m.shards[0].workers.machine_type = "m7g.large";
});
const armGoogle = modelWith("cell-1", (m) => {
  m.shards[0].managers.machine_type = "t2a-standard-2";
  m.shards[0].workers.machine_type = "c4a-standard-4";
});

describe("an arm64 shard", () => {
  it("boots arm64 images on AWS: Ubuntu 24.04's SSM parameter on managers, the ECS-optimized Amazon Linux 2023 one on workers", () => {
    const stack = new TerraformStack(Testing.app(), "arm");
    new AwsProvider(stack, "aws", { region: "eu-west-1" });
    awsFleetOf(stack, armAws);
    const templates = Object.values(JSON.parse(Testing.synth(stack)).resource.aws_launch_template) as Array<{ image_id: string; description: string }>;
    expect(templates).toHaveLength(4);
    for (const template of templates) {
      expect(template.image_id).toBe(
        template.description.includes("workers")
          ? "resolve:ssm:/aws/service/ecs/optimized-ami/amazon-linux-2023/arm64/recommended/image_id"
          : "resolve:ssm:/aws/service/canonical/ubuntu/server/24.04/stable/current/arm64/hvm/ebs-gp3/ami-id",
      );
    }
    expect(templates.filter((template) => template.description.includes("workers"))).toHaveLength(2);
  });

  it("boots the ubuntu-2404-lts-arm64 family on Google Cloud, and amd64 for the other shard", () => {
    const stack = new TerraformStack(Testing.app(), "arm");
    new GoogleProvider(stack, "google", {});
    googleFleetOf(stack, armGoogle);
    const templates = Object.values(JSON.parse(Testing.synth(stack)).resource.google_compute_instance_template) as Array<{
      machine_type: string;
      disk: Array<{ source_image: string }>;
    }>;
    for (const template of templates) {
      const expected = /^(t2a|c4a)-/.test(template.machine_type) ? "ubuntu-2404-lts-arm64" : "ubuntu-2404-lts-amd64";
      expect(template.disk[0].source_image).toBe(`projects/ubuntu-os-cloud/global/images/family/${expected}`);
    }
    expect(templates.filter((template) => template.disk[0].source_image.endsWith("arm64"))).toHaveLength(4);
  });

  it("tells the docker-autoscaler its workers are arm64", () => {
    const config = parseToml(renderConfigToml(armAws, armAws.shards[0], 0)) as any;
    expect(config.runners[0].autoscaler.connector_config.arch).toBe("arm64");
  });

  describe("manager script, run against stubs", () => {
    let sandbox: ScriptSandbox;
    beforeEach(() => {
      sandbox = new ScriptSandbox();
    });
    afterEach(() => sandbox.dispose());
    const token = () => `glrt-t1_${randomBytes(15).toString("base64url")}`;

    it("installs the runner and the plugin on an arm64 host", () => {
      const run = sandbox.run(managerPayload(armAws, armAws.shards[0], 0), { STUB_RUNNER_TOKEN: token(), STUB_ARCH: "arm64" });
      expectSucceeded(run);
      expect(run.stderr).toContain("installing the fleeting plugin aws:1.1.0 for linux/arm64");
      expect(run.calls.some((call) => call.name === "gitlab-runner" && call.args.includes("install"))).toBe(true);
    });

    it("stops before installing anything when the image is amd64", () => {
      const run = sandbox.run(managerPayload(armAws, armAws.shards[0], 0), { STUB_RUNNER_TOKEN: token(), STUB_ARCH: "amd64" });
      expect(run.status).not.toBe(0);
      expect(run.stderr).toContain("this image is amd64, but the machine type is arm64");
      expect(run.calls.filter((call) => call.name === "apt-get" || call.name === "gitlab-runner")).toEqual([]);
    });
  });
});

describe("bin/prepare refuses a shard of mixed architectures (exit 2, file:line:col)", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "arch-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const prepare = (content: string) => {
    const file = join(dir, "cell-9.yaml");
    writeFileSync(file, content);
    const result = runBin("prepare", ["--model", file, "--models-dir", dir]);
    return { file, status: result.status, output: result.stdout + result.stderr };
  };

  it("arm64 managers with amd64 workers", () => {
    const { file, status, output } = prepare(BASE_MODEL.replace("machine_type: e2-standard-2", "machine_type: t2a-standard-2"));
    expect(status).toBe(2);
    expect(output).toContain(`${file}:17:21:`);
    expect(output).toContain("architecture (arm64, t2a-standard-2)");
    expect(output).toContain('"n2d-standard-2"');
    expect(output).not.toMatch(STACK_TRACE_LINE);
  });

  it("an amd64 image for an arm64 machine type", () => {
    const content = BASE_MODEL.replace("machine_type: e2-standard-2", "machine_type: t2a-standard-2")
      .replace("machine_type: n2d-standard-2", "machine_type: t2a-standard-2\n      image: projects/ubuntu-os-cloud/global/images/family/ubuntu-2404-lts-amd64");
    const { file, status, output } = prepare(content);
    expect(status).toBe(2);
    expect(output).toContain(`${file}:18:14:`);
    expect(output).toContain("an arm64 image for machine type t2a-standard-2 (this image is amd64)");
  });
});
