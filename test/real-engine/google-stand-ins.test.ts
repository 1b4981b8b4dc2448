/**
 * Every Google Cloud stack the tests synthesize is checked by the real terraform with
 * terraform_data stand-ins for the Google provider (no Google provider binary exists
 * offline): every string parsed as a template, every reference resolved, every
 * expression evaluated by a real plan.
 */
import { liveConfigContent } from "../../lib/render/live-config";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { LoadedModel } from "../../lib/model/load";
import { readResourceShards, readSynthesizedStack, summarizePlan, summarizeSynth } from "../../lib/review/change-summary";
import { renderedFilesForCell } from "../../lib/render/rendered-files";
import { synthesizeCells } from "../../stacks/synthesize";
import { describeWithRealEngine } from "../support/real-engine/availability";
import { checkGoogleStack } from "../support/real-engine/google-check";
import { exampleCell, googleVariant, TEMPLATE_LOOKING_VALUES } from "../support/real-engine/variants";

const STACKS: ReadonlyArray<[string, () => LoadedModel]> = [
  ["cell-1 (the Google Cloud example)", () => exampleCell("cell-1")],
  ["an existing network, three shards (one on Arm), template-looking model values", googleVariant],
];

describeWithRealEngine("Google Cloud stacks checked by the real terraform through stand-ins", { aws: false }, () => {
  let outdir: string;
  beforeAll(() => (outdir = mkdtempSync(join(tmpdir(), "runner-fleet-google-synth-"))));
  afterAll(() => rmSync(outdir, { recursive: true, force: true }));

  // Each model is synthesized once (the same id is the same model here); every caller gets its own
  // copy of the stack, read from disk, to change as it likes.
  const synthesized = new Map<string, ReturnType<typeof synthesizeCells>[number]>();
  const synthesize = (loaded: LoadedModel) => {
    let cell = synthesized.get(loaded.model.cell.id);
    if (!cell) {
      [cell] = synthesizeCells([loaded], { outdir });
      synthesized.set(loaded.model.cell.id, cell);
    }
    return { cell, stack: readSynthesizedStack(cell.stackDir) as Record<string, unknown> };
  };

  it.each(STACKS)("%s: plan (validation included) succeeds, one stand-in instance per resource of the dry run", async (_, make) => {
    const loaded = make();
    const { cell, stack } = synthesize(loaded);
    const { plan, standIns } = await checkGoogleStack(stack);

    const dryRun = summarizeSynth(readSynthesizedStack(cell.stackDir), readResourceShards(cell.stackDir));
    const planned = summarizePlan(plan, () => undefined);
    expect(planned.counts).toEqual(dryRun.counts);
    expect(planned.resources.every((resource) => resource.type === "terraform_data")).toBe(true);
    expect(standIns.standIns.length).toBeGreaterThan(0);

    // Every boot script reaches the (stand-in) instance templates exactly as rendered for review.
    const scripts = renderedFilesForCell(loaded.model).filter((file) => file.path.endsWith(".sh")).map((file) => file.content);
    expect(new Set(plannedStrings(plan, "startup-script"))).toEqual(new Set(scripts));
    // And every manager's config.toml reaches its (stand-in) secret version, as rendered, after its restart digest.
    const configs = renderedFilesForCell(loaded.model).filter((file) => file.path.endsWith("config.toml")).map((file) => liveConfigContent(file.content));
    expect(new Set(plannedStrings(plan, "secret_data"))).toEqual(new Set(configs));
  }, 60_000);

  it("writes model values that look like Terraform syntax as literals", async () => {
    const { stack } = synthesize(googleVariant());
    const { plan } = await checkGoogleStack(stack);
    expect(plannedStrings(plan, "source_image")).toContain(TEMPLATE_LOOKING_VALUES.image);
    expect(plannedStrings(plan, "network")).toContain(TEMPLATE_LOOKING_VALUES.network);
    expect(plannedStrings(plan, "subnetwork")).toContain(TEMPLATE_LOOKING_VALUES.subnet);
    // config.toml reaches the managers through their config secrets (lib/render/live-config.ts), not the startup script.
    expect(plannedStrings(plan, "secret_data").some((config) => config.includes(`image = ${JSON.stringify(TEMPLATE_LOOKING_VALUES.dockerImage)}`))).toBe(true);
  }, 60_000);

  describe("fails when", () => {
    const cell1 = () => synthesize(exampleCell("cell-1")).stack;
    const firstTemplate = (stack: Record<string, unknown>) => {
      const templates = (stack.resource as Record<string, Record<string, Record<string, unknown>>>).google_compute_instance_template;
      return Object.values(templates)[0];
    };

    it("a script reaches the stack unescaped (the bug this check was made for)", async () => {
      const stack = cell1();
      (firstTemplate(stack).metadata as Record<string, string>)["startup-script"] = 'echo "${ROOT}/bin"';
      await expect(checkGoogleStack(stack)).rejects.toThrow(/Error: Invalid reference/);
    }, 60_000);

    it("a reference names a resource the stack does not declare", async () => {
      const stack = cell1();
      firstTemplate(stack).description = "${google_compute_network.nowhere.self_link}";
      await expect(checkGoogleStack(stack)).rejects.toThrow(/Reference to undeclared resource/);
    }, 60_000);

    it("a reference reads an attribute the provider's schema does not have", async () => {
      const stack = cell1();
      const network = Object.keys((stack.resource as Record<string, Record<string, unknown>>).google_compute_network)[0];
      firstTemplate(stack).description = `\${google_compute_network.${network}.self_lnk}`;
      await expect(checkGoogleStack(stack)).rejects.toThrow(/google_compute_network has no attribute "self_lnk"/);
    }, 60_000);
  });
});

/** Every planned string value under a key named `key`, anywhere in the stand-ins' inputs. */
function plannedStrings(plan: { planned_values?: unknown }, key: string): string[] {
  const found: string[] = [];
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(walk);
    else if (value !== null && typeof value === "object") {
      for (const [name, inner] of Object.entries(value)) {
        if (name === key && typeof inner === "string") found.push(inner);
        else walk(inner);
      }
    }
  };
  walk(plan.planned_values);
  return found;
}
