/** Which changed cells go in which wave (lib/rollout/waves.ts), by the policy's waves in order. */
import { parseRolloutPolicy } from "../../lib/rollout/load-policy";
import { DEFAULT_ROLLOUT_POLICY } from "../../lib/rollout/policy-schema";
import { planWaves } from "../../lib/rollout/waves";

const twenty = Array.from({ length: 20 }, (_, index) => ({ cell: `cell-${String(index + 1).padStart(2, "0")}`, labels: { environment: index < 4 ? "staging" : "production" } }));

describe("planWaves", () => {
  it("with the defaults, 20 cells go one canary, then 10 % (2), then the other 17", () => {
    const waves = planWaves(twenty, DEFAULT_ROLLOUT_POLICY);
    expect(waves.map((wave) => [wave.name, wave.cells.length])).toEqual([["canary", 1], ["ten-percent", 2], ["rest", 17]]);
    expect(waves[0].cells).toEqual(["cell-01"]);
    expect(waves[1].cells).toEqual(["cell-02", "cell-03"]);
  });

  it("a change to one cell has no waves: it applies as it always did", () => {
    expect(planWaves(twenty.slice(0, 1), DEFAULT_ROLLOUT_POLICY)).toEqual([]);
  });

  it("places named cells, then cells by label, each cell once; the rest go last; waves the change leaves empty are dropped", () => {
    const policy = parseRolloutPolicy(
      ["waves:", "  - { name: canary, cells: [cell-07, cell-99] }", "  - { name: staging, labels: { environment: staging } }", "  - { name: eu, labels: { region: eu } }", "manual_promotion: [cell-20]", ""].join("\n"),
      "rollout.yaml",
    );
    const waves = planWaves(twenty, policy);
    expect(waves.map((wave) => wave.name)).toEqual(["canary", "staging", "rest"]);
    expect(waves[0]).toEqual({ name: "canary", cells: ["cell-07"], manual: false });
    expect(waves[1].cells).toEqual(["cell-01", "cell-02", "cell-03", "cell-04"]);
    expect(waves[2].cells).toHaveLength(15);
    expect(waves[2].manual).toBe(true);
  });
});
