/**
 * The version a stack records (stacks/cell-stack.ts) is what the real terraform writes to the state
 * at apply, and what `status` reads back from a local state file.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LocalBackend, TerraformStack, Testing } from "cdktf";
import { toolkitVersion } from "../../lib/files/toolkit-version";
import { recordedToolkitVersion } from "../../lib/terraform/recorded-version";
import { recordToolkitVersion } from "../../stacks/cell-stack";
import { modelWith } from "../support/models";
import { describeWithRealEngine } from "../support/real-engine/availability";
import { isolatedEnv, terraform } from "../support/real-engine/terraform-cli";

describeWithRealEngine("the recorded toolkit version, applied by the real terraform", { aws: false }, () => {
  let dir: string;
  beforeAll(() => (dir = mkdtempSync(join(tmpdir(), "runner-fleet-version-"))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("is in the local state after apply, where status reads it", async () => {
    const stack = new TerraformStack(Testing.app(), "cell-1");
    new LocalBackend(stack, { path: join(dir, "cell-1.tfstate") });
    recordToolkitVersion(stack);
    writeFileSync(join(dir, "main.tf.json"), Testing.synth(stack));
    const model = modelWith("cell-1", (changed) => {
      changed.state = { backend: "local", path: "cell-1.tfstate" } as typeof changed.state;
    });
    expect(recordedToolkitVersion(model, dir)).toMatchObject({ version: null });

    const env = isolatedEnv();
    await terraform(["init", "-input=false", "-no-color"], dir, env);
    await terraform(["apply", "-auto-approve", "-input=false", "-no-color"], dir, env);

    expect(recordedToolkitVersion(model, dir)).toEqual({ version: toolkitVersion(), source: "cell-1.tfstate" });
  });
});
