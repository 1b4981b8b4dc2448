import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { Lazy, TerraformStack, Testing } from "cdktf";
import { loadModelFile } from "../../lib/model/load";
import { CellStack } from "../../stacks/cell-stack";
import { managerSlots, resourceShards } from "../../stacks/cell-synthesis";
import { synthesizeCells } from "../../stacks/synthesize";
import { awsVariant, googleVariant } from "../support/real-engine/variants";
import { decodeUserData } from "../constructs/aws/support";
import { MODELS_DIR } from "../support/models";

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

describe("synthesizeCells over the examples", () => {
  let outdir: string;
  let fakeToken: string;
  let cells: ReturnType<typeof synthesizeCells>;
  const savedEnv = { ...process.env };

  beforeAll(() => {
    outdir = mkdtempSync(join(tmpdir(), "synth-"));
    // GIVEN tokens lying around where a careless synth could pick them up: the environment and a local store
    fakeToken = `glrt-t1_${randomBytes(15).toString("base64url")}`;
    process.env.GITLAB_TOKEN = `glpat-${randomBytes(15).toString("base64url")}`;
    process.env.RUNNER_TOKEN = fakeToken;
    mkdirSync(join(outdir, "secrets"));
    writeFileSync(join(outdir, "secrets", "cell-1--small-amd64.json"), JSON.stringify({ token: fakeToken }));
    cells = synthesizeCells(
      ["cell-1.yaml", "cell-2.yaml"].map((name) => loadModelFile(join(MODELS_DIR, name))),
      { outdir: join(outdir, "cdktf.out"), workDir: outdir },
    );
  });
  afterAll(() => {
    process.env = savedEnv;
    rmSync(outdir, { recursive: true, force: true });
  });

  it("writes one stack per cell", () => {
    expect(cells.map((cell) => cell.cell)).toEqual(["cell-1", "cell-2"]);
    for (const cell of cells) {
      expect(JSON.parse(readFileSync(cell.stackJsonFile, "utf8")).resource).toBeDefined();
      expect(cell.resourceCount).toBeGreaterThan(20);
    }
  });

  it("writes each manager's config.toml and startup script beside its stack for reviewers", () => {
    const rendered = filesUnder(join(cells[0].stackDir, "rendered")).map((path) => path.slice(cells[0].stackDir.length + 1));
    const model = loadModelFile(join(MODELS_DIR, "cell-1.yaml")).model;
    for (const shard of model.shards) {
      for (let slot = 0; slot < shard.managers.count; slot++) {
        expect(rendered).toContain(`rendered/${shard.name}/manager-${slot}/config.toml`);
        expect(rendered).toContain(`rendered/${shard.name}/manager-${slot}/startup.sh`);
      }
      expect(rendered).toContain(`rendered/${shard.name}/worker-startup.sh`);
    }
  });

  it("boots every VM with exactly the file written for reviewers (the scripts are rendered once, for both)", () => {
    const google = JSON.parse(readFileSync(cells[0].stackJsonFile, "utf8"));
    // Terraform reads "$${" and "%%{" in a JSON string as the literal "${" and "%{" (stacks/literal-text.ts escapes them).
    const startupScripts = Object.values(google.resource.google_compute_instance_template).map((template: any) =>
      (template.metadata["startup-script"] as string).replace(/\$\$\{/g, "${").replace(/%%\{/g, "%{"),
    );
    const aws = JSON.parse(readFileSync(cells[1].stackJsonFile, "utf8"));
    const userData = Object.values(aws.resource.aws_launch_template).map((template: any) => decodeUserData(template.user_data));
    for (const [cell, booted] of [[cells[0], startupScripts], [cells[1], userData]] as const) {
      const scripts = filesUnder(join(cell.stackDir, "rendered"))
        .filter((path) => path.endsWith(".sh"))
        .map((path) => readFileSync(path, "utf8"));
      // One template per manager slot and per worker group; the shard's worker groups share one script.
      expect(new Set(booted)).toEqual(new Set(scripts));
      expect(booted.length).toBeGreaterThan(scripts.length);
    }
  });

  it("writes resource-shards.json, manager-slots.json and the resource count as the written cdk.tf.json gives them, in its order", () => {
    for (const cell of cells) {
      const stackJson = JSON.parse(readFileSync(cell.stackJsonFile, "utf8"));
      expect(readFileSync(join(cell.stackDir, "resource-shards.json"), "utf8")).toBe(`${JSON.stringify(resourceShards(stackJson), null, 2)}\n`);
      expect(readFileSync(join(cell.stackDir, "manager-slots.json"), "utf8")).toBe(`${JSON.stringify(managerSlots(stackJson), null, 2)}\n`);
      expect(Object.keys(managerSlots(stackJson)).length).toBeGreaterThan(1);
      expect(cell.resourceCount).toBe(Object.values(stackJson.resource as Record<string, object>).reduce((sum, byName) => sum + Object.keys(byName).length, 0));
    }
  });

  it("maps every per-shard resource to its shard, and leaves cell-wide ones out", () => {
    const shards = JSON.parse(readFileSync(join(cells[0].stackDir, "resource-shards.json"), "utf8")) as Record<string, string>;
    const stack = JSON.parse(readFileSync(cells[0].stackJsonFile, "utf8"));
    expect(new Set(Object.values(shards))).toEqual(new Set(["small-amd64", "large-amd64"]));
    for (const address of Object.keys(shards)) {
      const [type, name] = address.split(".");
      expect(stack.resource[type][name]["//"].metadata.path).toContain(`/shard-${shards[address]}/`);
    }
    expect(Object.keys(stack.resource.google_compute_network).every((name) => !(`google_compute_network.${name}` in shards))).toBe(true);
  });

  it("leaves no token, nor anything token-shaped, anywhere in cdktf.out", () => {
    for (const file of filesUnder(join(outdir, "cdktf.out"))) {
      const text = readFileSync(file, "utf8");
      expect(text).not.toContain(fakeToken);
      expect(text).not.toContain(process.env.GITLAB_TOKEN!);
      expect(text).not.toMatch(/gl(rt|pat)-[A-Za-z0-9_-]{20,}/);
    }
  });
});

describe("CellStack skips cdktf's preparing resolve run and its second resolve of the whole stack", () => {
  let outdir: string;
  beforeAll(() => (outdir = mkdtempSync(join(tmpdir(), "synth-prepare-"))));
  afterAll(() => rmSync(outdir, { recursive: true, force: true }));

  it("writes byte for byte what cdktf's own prepareStack and toTerraform lead to, for both examples and a variant of each cloud", () => {
    const models = () => [...["cell-1.yaml", "cell-2.yaml"].map((name) => loadModelFile(join(MODELS_DIR, name))), googleVariant(), awsVariant()];
    // GIVEN the stacks synthesized as the product does (one of them with a manager slot held, as a roll
    // holds it), and again with cdktf's prepareStack and toTerraform put back (and nothing resolved ahead
    // of cdktf's synth: CellStack.resolveAhead)
    const cell2 = loadModelFile(join(MODELS_DIR, "cell-2.yaml")).model;
    const heldManagerSlots = new Map([["cell-2", new Set([`${cell2.shards[0].name}/0`])]]);
    synthesizeCells(models(), { outdir: join(outdir, "skipped"), heldManagerSlots });
    const own = {
      prepareStack: Object.getOwnPropertyDescriptor(CellStack.prototype, "prepareStack")!,
      toTerraform: Object.getOwnPropertyDescriptor(CellStack.prototype, "toTerraform")!,
      resolveAhead: Object.getOwnPropertyDescriptor(CellStack.prototype, "resolveAhead")!,
    };
    CellStack.prototype.resolveAhead = () => undefined;
    let preparingRuns = 0;
    let cdktfToTerraformRuns = 0;
    const cdktfPrepare = TerraformStack.prototype.prepareStack;
    const cdktfToTerraform = TerraformStack.prototype.toTerraform;
    CellStack.prototype.prepareStack = function (this: CellStack) {
      preparingRuns += 1;
      cdktfPrepare.call(this);
    };
    CellStack.prototype.toTerraform = function (this: CellStack) {
      cdktfToTerraformRuns += 1;
      return cdktfToTerraform.call(this);
    };
    try {
      synthesizeCells(models(), { outdir: join(outdir, "prepared"), heldManagerSlots });
    } finally {
      Object.defineProperty(CellStack.prototype, "prepareStack", own.prepareStack);
      Object.defineProperty(CellStack.prototype, "toTerraform", own.toTerraform);
      Object.defineProperty(CellStack.prototype, "resolveAhead", own.resolveAhead);
    }
    expect(preparingRuns).toBe(4);
    expect(cdktfToTerraformRuns).toBe(4);
    // THEN every file is the same
    const relative = (root: string) => filesUnder(root).map((path) => path.slice(root.length + 1)).sort();
    const files = relative(join(outdir, "prepared"));
    expect(relative(join(outdir, "skipped"))).toEqual(files);
    expect(files.filter((file) => file.endsWith("cdk.tf.json"))).toHaveLength(4);
    for (const file of files) expect(readFileSync(join(outdir, "skipped", file), "utf8")).toBe(readFileSync(join(outdir, "prepared", file), "utf8"));
    expect(readFileSync(join(outdir, "skipped", "stacks", "cell-2", "cdk.tf.json"), "utf8")).toContain('"ignore_changes": "all"');
  });

  it("leaves a stack whose own overrides hold a token to cdktf's toTerraform, which resolves them", () => {
    // GIVEN a cell stack with an override at the stack level whose value is a token
    const app = Testing.app();
    const stack = new CellStack(app, { model: loadModelFile(join(MODELS_DIR, "cell-2.yaml")).model, workDir: outdir });
    stack.addOverride("locals.greeting", Lazy.stringValue({ produce: () => "hello" }));
    // THEN the override reaches the JSON resolved, and the rest of the stack is there too
    const json = JSON.parse(Testing.synth(stack));
    expect(json.locals).toEqual({ greeting: "hello" });
    expect(Object.keys(json.resource).length).toBeGreaterThan(5);
  });
});
