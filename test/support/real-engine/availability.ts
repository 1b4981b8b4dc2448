/**
 * The real-engine tests never pass silently without their engine. When `terraform`
 * (or, for AWS, the provider binary) is missing, the suite fails with a message that
 * says what is missing and how to point at it; only an explicit opt-out
 * ($RUNNER_FLEET_SKIP_REAL_ENGINE=1) turns that into skipped tests, announced loudly.
 */
import { spawnSync } from "node:child_process";
import { findAwsProvider, type AwsProvider } from "./aws-provider";
import { TERRAFORM_BINARY_ENV, isolatedEnv, terraformBinary } from "./terraform-cli";

export const SKIP_REAL_ENGINE_ENV = "RUNNER_FLEET_SKIP_REAL_ENGINE";

export interface RealEngine {
  readonly terraformVersion: string;
  /** Present when the AWS provider was asked for. */
  readonly awsProvider?: AwsProvider;
}

function findTerraform(): { version: string } | { missing: string } {
  const binary = terraformBinary();
  const probe = spawnSync(binary, ["version", "-json"], { env: isolatedEnv(), encoding: "utf8" });
  if (probe.error || probe.status !== 0) {
    return { missing: `no terraform binary: "${binary}" did not answer \`version -json\` (set $${TERRAFORM_BINARY_ENV} or put terraform on PATH)` };
  }
  return { version: (JSON.parse(probe.stdout) as { terraform_version: string }).terraform_version };
}

function findRealEngine(needs: { aws: boolean }): RealEngine | { missing: string } {
  const found = findTerraform();
  if ("missing" in found) return found;
  if (!needs.aws) return { terraformVersion: found.version };
  const awsProvider = findAwsProvider();
  if ("missing" in awsProvider) return awsProvider;
  return { terraformVersion: found.version, awsProvider };
}

/**
 * `describe` for tests that need the real engine: `body` gets what was found. Without
 * it, one failing test names what is missing, unless the opt-out is set.
 */
export function describeWithRealEngine(title: string, needs: { aws: boolean }, body: (engine: RealEngine) => void): void {
  const engine = findRealEngine(needs);
  if (!("missing" in engine)) {
    describe(title, () => body(engine));
    return;
  }
  if (process.env[SKIP_REAL_ENGINE_ENV] === "1") {
    process.stderr.write(`\n*** REAL-ENGINE CHECK DID NOT RUN: ${title}: ${engine.missing} ($${SKIP_REAL_ENGINE_ENV}=1) ***\n\n`);
    describe.skip(`${title} [DID NOT RUN: ${engine.missing}]`, () => {
      it("needs the real engine", () => undefined);
    });
    return;
  }
  describe(title, () => {
    it("has the real engine it needs", () => {
      throw new Error(`${engine.missing}. The real-engine checks cannot run; set $${SKIP_REAL_ENGINE_ENV}=1 to skip them knowingly.`);
    });
  });
}
