/**
 * A model whose only change is an autoscaling policy, synthesized as provision and review do, on both
 * clouds: no manager's instance or launch template changes (config.toml is not in them any more), the new
 * policy is in the config.toml stored for every manager (what the managers' config timer applies,
 * test/render/live-config-run.test.ts), and the review says it is applied live, without a roll.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "smol-toml";
import { loadModelFile } from "../../lib/model/load";
import { describeManagerChanges } from "../../lib/review/manager-changes";
import { diffCell } from "../../lib/review/stack-diff";
import type { StackJson } from "../../lib/review/entry-change";
import { configTomlOfLiveConfig } from "../../lib/render/live-config";
import { synthesizeCells } from "../../stacks/synthesize";
import { MODELS_DIR } from "../support/models";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "live-config-review-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The cell's stack as synthesized from its model file, with `edit` applied to the file's text. */
function synthesized(cell: "cell-1" | "cell-2", side: string, edit: (text: string) => string): StackJson {
  const file = join(dir, `${cell}-${side}.yaml`);
  writeFileSync(file, edit(readFileSync(join(MODELS_DIR, `${cell}.yaml`), "utf8")));
  const [result] = synthesizeCells([loadModelFile(file)], { outdir: join(dir, `${cell}-${side}-out`), workDir: dir });
  return JSON.parse(readFileSync(result.stackJsonFile, "utf8"));
}

const TEMPLATE_TYPES = ["google_compute_instance_template", "aws_launch_template"];
const CONFIG_ATTRIBUTE: Record<string, string> = { google_secret_manager_secret_version: "secret_data", aws_ssm_parameter: "insecure_value" };

describe.each([
  ["cell-1", "idle_count: 10", "idle_count: 14"],
  ["cell-2", "idle_count: 8", "idle_count: 12"],
] as const)("%s: an autoscaling policy change", (cell, from, to) => {
  let before: StackJson;
  let after: StackJson;
  beforeAll(() => {
    before = synthesized(cell, "before", (text) => text);
    after = synthesized(cell, "after", (text) => {
      expect(text).toContain(from);
      return text.replace(from, to);
    });
  });

  it("changes no manager template and reaches every manager's stored config.toml", () => {
    const diff = diffCell(cell, before, after);
    const changed = diff.resources.map((change) => change.address.split(".")[0]);
    expect(changed.filter((type) => TEMPLATE_TYPES.includes(type))).toEqual([]);
    const configs = diff.resources.filter((change) => change.constructPath?.includes("/live-config/Config"));
    expect(configs.length).toBeGreaterThan(0);
    expect(configs.every((change) => change.action === "update")).toBe(true);
    // The new idle_count is in every changed stored config.toml, in a [[runners.autoscaler.policy]] entry.
    const wanted = Number(to.split(": ")[1]);
    for (const change of configs) {
      const [type, name] = change.address.split(".");
      const content = (after.resource as Record<string, Record<string, Record<string, string>>>)[type][name][CONFIG_ATTRIBUTE[type]];
      const toml = parse(configTomlOfLiveConfig(content)) as { runners: Array<{ autoscaler: { policy: Array<{ idle_count: number }> } }> };
      expect(toml.runners[0].autoscaler.policy.map((policy) => policy.idle_count)).toContain(wanted);
    }
  });

  it("is applied live in the review: no manager replaced or restarted, no roll", () => {
    const { managers } = diffCell(cell, before, after);
    expect(managers.length).toBeGreaterThan(0);
    for (const shard of managers) {
      expect(shard.replaced).toEqual([]);
      expect(shard.restarted).toEqual([]);
      expect(shard.live.length).toBe(shard.total);
      const described = describeManagerChanges(shard);
      expect(described.what).toBe(`has config.toml applied live to ${shard.total} of ${shard.total} managers of shard ${shard.shard} (no restart, no new VM)`);
      expect(described.why).toContain("runners.autoscaler.policy.idle_count");
      expect(described.stopsRunners).toBe(false);
    }
  });

  it("fails when a setting gitlab-runner does not reload changes too: the review says the runner restarts in place", () => {
    const restarted = synthesized(cell, "restart", (text) => text.replace(from, to).replace(/max_instances: (\d+)/, (_all, count) => `max_instances: ${Number(count) + 1}`));
    const { managers } = diffCell(cell, before, restarted);
    const shard = managers.find((entry) => entry.restarted.length > 0)!;
    expect(shard.replaced).toEqual([]);
    expect(describeManagerChanges(shard).what).toContain(`restarts the runner in place on ${shard.total} of ${shard.total} managers of shard ${shard.shard}`);
    expect(describeManagerChanges(shard).stopsRunners).toBe(true);
  });
});
