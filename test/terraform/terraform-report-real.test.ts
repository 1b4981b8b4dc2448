/**
 * GitLab's Terraform report from plans the real terraform binary makes (terraform_data needs
 * no provider download), with the engine's -lock-timeout on every plan and apply.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EngineDriver, isStalePlanFailure } from "../../lib/terraform/engine";
import { terraformReport } from "../../lib/review/terraform-report";
import { planInputsDigest } from "../../lib/terraform/plan-inputs";

const TERRAFORM = "/usr/local/bin/terraform";

describe("terraform report from real plans", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "tf-report-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const writeStack = (resources: Record<string, unknown>) =>
    writeFileSync(join(dir, "cdk.tf.json"), JSON.stringify({ resource: { terraform_data: resources } }, null, 2));
  const driver = () =>
    new EngineDriver({ engine: "terraform", executable: TERRAFORM, cwd: dir, env: { PATH: process.env.PATH, HOME: dir }, lockTimeout: "30s" });

  it("counts creates, then an update, a replacement (create + delete) and a delete", async () => {
    writeStack({ kept: { input: "one" }, removed: { input: "two" }, replaced: { triggers_replace: ["x"] } });
    const engine = driver();
    await engine.init();
    const first = await engine.plan({ out: "first.tfplan" });
    expect(first.changes).toBe(true);
    expect(terraformReport(await engine.showPlanJson(first.planFile))).toEqual({ create: 3, update: 0, delete: 0 });
    await engine.apply(first.planFile);

    writeStack({ kept: { input: "uno" }, replaced: { triggers_replace: ["y"] } });
    const second = await engine.plan({ out: "second.tfplan" });
    expect(terraformReport(await engine.showPlanJson(second.planFile))).toEqual({ create: 1, update: 1, delete: 2 });
    await engine.apply(second.planFile);

    const third = await engine.plan({ out: "third.tfplan" });
    expect(third.changes).toBe(false);
    expect(terraformReport(await engine.showPlanJson(third.planFile))).toEqual({ create: 0, update: 0, delete: 0 });
  }, 60_000);

  it("recognizes the engine's refusal of a saved plan whose state changed since", async () => {
    writeStack({ kept: { input: "one" } });
    const engine = driver();
    await engine.init();
    const older = await engine.plan({ out: "older.tfplan" });
    const newer = await engine.plan({ out: "newer.tfplan" });
    await engine.apply(newer.planFile);
    const refusal = await engine.apply(older.planFile).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(isStalePlanFailure(refusal)).toBe(true);
    expect(isStalePlanFailure(new Error("Saved plan is stale"))).toBe(false);
  }, 60_000);

  it("leaves out data source reads and no-ops, as GitLab's own tooling does", () => {
    const change = (address: string, mode: "managed" | "data", actions: string[]) => ({
      address,
      mode,
      type: "t",
      name: address,
      change: { actions, before: null, after: null },
    });
    const plan = {
      format_version: "1.2",
      resource_changes: [change("d", "data", ["read"]), change("n", "managed", ["no-op"]), change("r", "managed", ["create", "delete"])],
    } as unknown as Parameters<typeof terraformReport>[0];
    expect(terraformReport(plan)).toEqual({ create: 1, update: 0, delete: 1 });
  });

  it("digests the provider lock file with the stack", () => {
    writeStack({ kept: { input: "one" } });
    const engine = { name: "terraform" as const, version: "1.11.4" };
    const before = planInputsDigest(dir, engine);
    writeFileSync(join(dir, ".terraform.lock.hcl"), 'provider "registry.terraform.io/hashicorp/aws" {\n  version = "5.100.0"\n}\n');
    expect(planInputsDigest(dir, engine)).not.toBe(before);
  });

  it("digests the stack: a changed stack changes the digest, the same stack keeps it", () => {
    writeStack({ kept: { input: "one" } });
    const engine = { name: "terraform" as const, version: "1.11.4" };
    const before = planInputsDigest(dir, engine);
    expect(planInputsDigest(dir, engine)).toBe(before);
    expect(planInputsDigest(dir, { ...engine, version: "1.11.5" })).not.toBe(before);
    writeStack({ kept: { input: "two" } });
    expect(planInputsDigest(dir, engine)).not.toBe(before);
  });
});
