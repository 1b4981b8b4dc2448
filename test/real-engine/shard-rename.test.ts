/**
 * A renamed shard (`renamed_from`) keeps every resource: the real terraform applies the stack of the
 * shard under its old name, then plans the stack of the renamed shard against that state, and the plan
 * moves each of the shard's resources (moved blocks) and destroys, creates and changes none. Both clouds
 * are planned through terraform_data stand-ins (../support/real-engine/provider-stand-ins.ts): no
 * provider binary can apply offline, and terraform_data can. A stand-in's `input` is its resource's
 * whole configuration, so "no update" also says that no attribute (name, label, boot script) changed.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse, stringify } from "yaml";
import { readFileSync } from "node:fs";
import { parseModel, type LoadedModel } from "../../lib/model/load";
import { readSynthesizedStack } from "../../lib/review/change-summary";
import { parsePlanJson, type PlanJson } from "../../lib/terraform/plan-json";
import { synthesizeCells } from "../../stacks/synthesize";
import { MODELS_DIR } from "../support/models";
import { describeWithRealEngine } from "../support/real-engine/availability";
import { googleSchemaHasAttribute } from "../support/real-engine/google-schema";
import { standInName, withProviderStandIns } from "../support/real-engine/provider-stand-ins";
import { isolatedEnv, terraform } from "../support/real-engine/terraform-cli";

type Example = "cell-1" | "cell-2";

/** The example, with its first shard renamed to `newName` when given (renamed_from: its old name). */
function example(name: Example, newName?: string): LoadedModel {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const data: any = parse(readFileSync(join(MODELS_DIR, `${name}.yaml`), "utf8"));
  if (newName) {
    data.shards[0].renamed_from = data.shards[0].name;
    data.shards[0].name = newName;
  }
  return parseModel(stringify(data), `generated/${name}.yaml`);
}

type Blocks = Record<string, Record<string, { "//"?: { metadata?: { path?: string } } }>>;

function synthesized(loaded: LoadedModel, outdir: string): Record<string, unknown> {
  const [cell] = synthesizeCells([loaded], { outdir });
  return readSynthesizedStack(cell.stackDir) as Record<string, unknown>;
}

/**
 * A data source's address in `after` → its address in `before`, matched by construct path with the shard's
 * scope renamed. Terraform keeps no data source in the state, it reads each again: one whose arguments did
 * not change reads the same values, whatever its address, which the stand-ins' placeholders must say too.
 */
function renamedDataSources(before: Record<string, unknown>, after: Record<string, unknown>, from: string, to: string): Map<string, string> {
  const byPath = (stack: Record<string, unknown>) =>
    Object.entries((stack.data ?? {}) as Blocks).flatMap(([type, byName]) => Object.entries(byName).map(([name, block]) => [block["//"]?.metadata?.path ?? "", `data.${type}.${name}`] as const));
  const old = new Map(byPath(before));
  const renamed = new Map<string, string>();
  for (const [path, address] of byPath(after)) {
    const former = old.get(path.replace(`/shard-${to}/`, `/shard-${from}/`));
    if (former && former !== address) renamed.set(address, former);
  }
  return renamed;
}

/** The stack as stand-ins, its moved blocks pointed at the stand-ins of the resources they name. */
function standInStack(loaded: LoadedModel, stack: Record<string, unknown>, dataRenames: ReadonlyMap<string, string> = new Map()): { json: Record<string, unknown>; moves: number } {
  const provider = loaded.model.cloud.provider;
  // AWS: every attribute counts as known to the provider (the check here is the plan's actions, not attribute names).
  const { json } = withProviderStandIns(stack, provider, provider === "google" ? googleSchemaHasAttribute : () => true);
  const standInAddress = (address: string) => {
    const [type, name] = address.split(".");
    return `terraform_data.${standInName(type, name, "managed")}`;
  };
  const blocks = (stack.moved ?? []) as { from: string; to: string }[];
  const moved = blocks.map((block) => ({ from: standInAddress(block.from), to: standInAddress(block.to) }));
  // A stand-in's computed attribute is a placeholder naming its resource ("computed <address>.email"); a moved
  // resource keeps its computed attributes (its state moves), so the placeholder keeps the address it moved from.
  let text = JSON.stringify({ ...json, ...(moved.length > 0 ? { moved } : {}) });
  for (const block of blocks) text = text.split(`computed ${block.to}.`).join(`computed ${block.from}.`);
  for (const [address, former] of dataRenames) text = text.split(`computed ${address}.`).join(`computed ${former}.`);
  return { json: JSON.parse(text) as Record<string, unknown>, moves: moved.length };
}

async function applyThenPlan(before: Record<string, unknown>, after: Record<string, unknown>): Promise<PlanJson> {
  const dir = mkdtempSync(join(tmpdir(), "runner-fleet-rename-"));
  try {
    const env = isolatedEnv({ GOGC: "800" });
    writeFileSync(join(dir, "stack.tf.json"), JSON.stringify(before));
    await terraform(["apply", "-auto-approve", "-input=false", "-no-color"], dir, env);
    writeFileSync(join(dir, "stack.tf.json"), JSON.stringify(after));
    await terraform(["plan", "-input=false", "-no-color", "-out=rename.tfplan"], dir, env);
    return parsePlanJson((await terraform(["show", "-json", "rename.tfplan"], dir, env)).stdout);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describeWithRealEngine("renaming a shard with renamed_from, planned by the real terraform against the applied old stack", { aws: false }, () => {
  let outdir: string;
  beforeAll(() => (outdir = mkdtempSync(join(tmpdir(), "runner-fleet-rename-synth-"))));
  afterAll(() => rmSync(outdir, { recursive: true, force: true }));

  it.each([
    ["cell-1", "Google Cloud", "ci"],
    ["cell-2", "AWS", "renamed"],
  ] as const)("%s (%s): every resource of the shard is moved, none destroyed, created or changed", async (name, _cloud, newName) => {
    const oldShard = example(name).model.shards[0].name;
    const [oldStack, newStack] = [synthesized(example(name), join(outdir, `${name}-before`)), synthesized(example(name, newName), join(outdir, `${name}-after`))];
    const before = standInStack(example(name), oldStack);
    const after = standInStack(example(name, newName), newStack, renamedDataSources(oldStack, newStack, oldShard, newName));
    const plan = await applyThenPlan(before.json, after.json);

    // Data sources hold no state: terraform reads them again at every plan. Their stand-ins are managed
    // terraform_data resources, which a plan would replace, so they are left out here.
    const changes = (plan.resource_changes ?? []).filter((change) => !change.address.startsWith("terraform_data.data__"));
    const actions = (kind: string) => changes.filter((change) => change.change.actions.includes(kind as never)).map((change) => change.address);
    expect(actions("delete")).toEqual([]);
    expect(actions("create")).toEqual([]);
    expect(actions("update")).toEqual([]);
    const moved = changes.filter((change) => change.previous_address !== undefined);
    // Every resource of the shard's scope, and only those: from shard-<old> to shard-<new> in the address.
    expect(moved.length).toBe(after.moves);
    expect(moved.length).toBeGreaterThan(10);
    for (const change of moved) {
      expect(change.previous_address).toContain(`shard-${oldShard}`);
      expect(change.address).toContain(`shard-${newName}`);
    }
  }, 120_000);

  it("fails when the rename has no renamed_from: the old shard's resources are destroyed and new ones created", async () => {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const data: any = parse(readFileSync(join(MODELS_DIR, "cell-2.yaml"), "utf8"));
    data.shards[0].name = "renamed";
    const renamed = parseModel(stringify(data), "generated/cell-2.yaml");
    const before = standInStack(example("cell-2"), synthesized(example("cell-2"), join(outdir, "plain-before")));
    const after = standInStack(renamed, synthesized(renamed, join(outdir, "plain-after")));
    const plan = await applyThenPlan(before.json, after.json);
    const deleted = (plan.resource_changes ?? []).filter((change) => change.change.actions.includes("delete"));
    expect(after.moves).toBe(0);
    expect(deleted.length).toBeGreaterThan(10);
  }, 120_000);
});
