/**
 * `review --child-pipeline --mode apply` in a models repository of 20 cells whose runner is bumped everywhere
 * (--all: every cell, as APPLY_ALL_CELLS runs it): the child it writes applies in the waves of rollout.yaml,
 * with the cells' labels read from their models.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "yaml";
import { runChildPipeline } from "../../app/commands/review";
import { MODELS_DIR } from "../support/models";

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "rollout-repo-"));
  mkdirSync(join(root, "models"));
  const example = readFileSync(join(MODELS_DIR, "cell-1.yaml"), "utf8");
  for (let index = 1; index <= 20; index += 1) {
    const cell = `cell-${String(index).padStart(2, "0")}`;
    const environment = index <= 3 ? "staging" : "production";
    // The example's cell.labels say environment: production.
    writeFileSync(join(root, "models", `${cell}.yaml`), example.replace("id: cell-1\n", `id: ${cell}\n`).replace("    environment: production\n", `    environment: ${environment}\n`));
  }
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe("the apply child pipeline of a 20-cell models repository", () => {
  it("follows rollout.yaml: a named canary, then the staging cells by label, then the rest; the gate waits up to max_wait", async () => {
    writeFileSync(join(root, "rollout.yaml"), ["waves:", "  - { name: canary, cells: [cell-02] }", "  - { name: staging, labels: { environment: staging } }", "  - name: production", "bake:", '  max_wait: "2h"', ""].join("\n"));
    const result = await runChildPipeline({ file: "child-apply.yml", mode: "apply", cells: "all", cwd: root });
    expect(result.waves?.map((wave) => [wave.name, wave.cells])).toEqual([
      ["canary", ["cell-02"]],
      ["staging", ["cell-01", "cell-03"]],
      ["production", Array.from({ length: 17 }, (_, index) => `cell-${String(index + 4).padStart(2, "0")}`)],
    ]);
    const child = parse(readFileSync(join(root, "child-apply.yml"), "utf8")) as Record<string, { needs?: string[]; timeout?: string }>;
    expect(child["apply:cell-01"].needs).toEqual(["gate:canary"]);
    expect(child["apply:cell-20"].needs).toEqual(["gate:staging"]);
    expect(child["gate:canary"].timeout).toBe("150m");
    expect(child["gate:production"]).toBeUndefined();
  });

  it("fails with exit 2 and the policy's line when rollout.yaml is wrong, writing no child", async () => {
    writeFileSync(join(root, "rollout.yaml"), "waves:\n  - { name: canary, share: 0 }\n");
    await expect(runChildPipeline({ file: "child-apply.yml", mode: "apply", cells: "all", cwd: root })).rejects.toThrow(/rollout\.yaml:2:\d+: waves\[0\]\.share: expected number to be >0, received 0 \(for example share: 10\)/);
    expect(() => readFileSync(join(root, "child-apply.yml"))).toThrow();
  });
});
