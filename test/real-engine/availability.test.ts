/**
 * Without its engine, a real-engine test never passes silently: it fails and names
 * what is missing, or, with the explicit opt-out, is skipped and says so loudly.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AWS_PROVIDER_DIR_ENV, findAwsProvider } from "../support/real-engine/aws-provider";
import { describeWithRealEngine, SKIP_REAL_ENGINE_ENV } from "../support/real-engine/availability";
import { TERRAFORM_BINARY_ENV } from "../support/real-engine/terraform-cli";
import { REPO_ROOT } from "../support/cli";

const AWS_TEST = "test/real-engine/aws-offline-plan.test.ts";

function jest(env: NodeJS.ProcessEnv) {
  const result = spawnSync(process.execPath, ["node_modules/jest/bin/jest.js", "--ci", AWS_TEST], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    encoding: "utf8",
    timeout: 120_000,
  });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

describe("real-engine tests without their engine", () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), "runner-fleet-provider-dir-"))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("fail, naming the missing provider and the opt-out", () => {
    // terraform is found (a stand-in answering `version -json`, all the check asks of it), so the provider
    // is what is missing, on a machine with terraform or without it (a release job's image).
    const terraform = join(dir, "terraform");
    writeFileSync(terraform, `#!/bin/sh\necho '{"terraform_version": "1.11.4"}'\n`);
    chmodSync(terraform, 0o755);
    const { status, output } = jest({ [AWS_PROVIDER_DIR_ENV]: join(dir, "absent"), [SKIP_REAL_ENGINE_ENV]: "", [TERRAFORM_BINARY_ENV]: terraform });
    expect(status).toBe(1);
    expect(output).toContain(`no terraform-provider-aws binary: $${AWS_PROVIDER_DIR_ENV} (${join(dir, "absent")}) does not exist`);
    expect(output).toContain(`set $${SKIP_REAL_ENGINE_ENV}=1 to skip them knowingly`);
  }, 120_000);

  it("with the opt-out, are reported skipped and announced as not run", () => {
    const { status, output } = jest({ [AWS_PROVIDER_DIR_ENV]: join(dir, "absent"), [SKIP_REAL_ENGINE_ENV]: "1" });
    expect(status).toBe(0);
    expect(output).toContain("*** REAL-ENGINE CHECK DID NOT RUN: AWS stacks planned by the real provider, offline");
    expect(output).toMatch(/Tests:\s+1 skipped, 1 total/);
  }, 120_000);

  it("find the provider only as an executable terraform-provider-aws_v* file", () => {
    writeFileSync(join(dir, "terraform-provider-aws_v9.9.9_x5"), "not executable");
    writeFileSync(join(dir, "terraform-provider-aws"), "no version");
    chmodSync(join(dir, "terraform-provider-aws"), 0o755);
    expect(findAwsProvider({ [AWS_PROVIDER_DIR_ENV]: dir })).toEqual({ missing: expect.stringContaining("no executable terraform-provider-aws_v* file") });
  });
});

describeWithRealEngine("the provider outside the mirror layout", { aws: true }, (engine) => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), "runner-fleet-provider-dir-"))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("is served through a mirror of the harness's own", () => {
    const real = engine.awsProvider!;
    symlinkSync(real.binary, join(dir, `terraform-provider-aws_v${real.version}_x5`));
    const found = findAwsProvider({ [AWS_PROVIDER_DIR_ENV]: dir });
    if ("missing" in found) throw new Error(found.missing);
    expect(found.version).toBe(real.version);
    expect(existsSync(join(found.mirrorDir, "registry.terraform.io", "hashicorp", "aws", real.version, "linux_amd64", `terraform-provider-aws_v${real.version}_x5`))).toBe(true);
  });
});
