/**
 * rollout.yaml: the defaults when there is none, and its problems reported as a model's are (file, YAML path,
 * line:col, received, expected, a value that passes; UserInputError, exit 2), all at once.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { UserInputError } from "../../lib/process/errors";
import { loadRolloutPolicy, parseRolloutPolicy, RolloutPolicyError } from "../../lib/rollout/load-policy";
import { DEFAULT_ROLLOUT_POLICY, rolloutPolicyJsonSchemaText } from "../../lib/rollout/policy-schema";

describe("the rollout policy", () => {
  it("without rollout.yaml: one canary cell, then 10 %, then the rest; a bake of 1 h or 100 jobs, whichever is later", () => {
    const dir = mkdtempSync(join(tmpdir(), "rollout-"));
    try {
      const loaded = loadRolloutPolicy(dir);
      expect(loaded.file).toBeUndefined();
      expect(loaded.policy.waves).toEqual([{ name: "canary", count: 1 }, { name: "ten-percent", share: 10 }, { name: "rest" }]);
      expect(loaded.policy.bake).toEqual({ duration: "1h", jobs: 100, max_wait: "6h", poll: "5m" });
      expect(loaded.policy.gates.failures.reasons).toEqual(["runner_system_failure", "stuck_or_timeout_failure", "scheduler_failure"]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("reads waves by name, share and label, gates and manual_promotion, keeping the defaults it does not set", () => {
    const policy = parseRolloutPolicy(
      ["waves:", "  - { name: canary, cells: [cell-07] }", "  - { name: staging, labels: { environment: staging } }", "  - { name: quarter, share: 25 }", "  - name: rest",
        "gates:", "  failures: { max_ratio: 3 }", "manual_promotion: [cell-prod-1]", ""].join("\n"),
      "rollout.yaml",
    );
    expect(policy.waves[1]).toEqual({ name: "staging", labels: { environment: "staging" } });
    expect(policy.gates.failures).toEqual({ ...DEFAULT_ROLLOUT_POLICY.gates.failures, max_ratio: 3 });
    expect(policy.manual_promotion).toEqual(["cell-prod-1"]);
    expect(policy.bake).toEqual(DEFAULT_ROLLOUT_POLICY.bake);
  });

  it("fails with every problem at once: file, path, line:col, received, expected and a value that passes", () => {
    const text = ["waves:", "  - name: canary", "    share: 150", "bake:", "  duration: 60", "  jobz: 10", ""].join("\n");
    let error: unknown;
    try {
      parseRolloutPolicy(text, "rollout.yaml");
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(RolloutPolicyError);
    expect(error).toBeInstanceOf(UserInputError);
    const message = (error as Error).message;
    expect(message).toContain("rollout.yaml is not a valid rollout policy (3 problems)");
    expect(message).toContain("rollout.yaml:3:12: waves[0].share: expected number to be <=100, received 150 (for example share: 10)");
    expect(message).toContain('rollout.yaml:5:13: bake.duration: expected string, received 60 (for example duration: "1h")');
    expect(message).toContain('rollout.yaml:6:3: bake.jobz: expected no key "jobz" (known keys here: duration, jobs, max_wait, poll), received 10');
  });

  it("fails when a wave has two selectors, naming both ways out", () => {
    expect(() => parseRolloutPolicy("waves:\n  - { name: a, count: 1, share: 10 }\n", "rollout.yaml")).toThrow(
      "rollout.yaml:2:5: waves[0]: expected at most one of cells, count, share or labels (none: every cell not yet placed), received a mapping",
    );
  });

  it("fails on a YAML syntax error with its line", () => {
    expect(() => parseRolloutPolicy("waves:\n  - name: a\n   bad: [\n", "rollout.yaml")).toThrow(/^rollout\.yaml is not a valid rollout policy \(1 problem\):\n  rollout\.yaml:\d+:\d+: \(top level\): expected valid YAML/);
  });

  it("has a JSON schema for editors, with the defaults' descriptions", () => {
    const schema = JSON.parse(rolloutPolicySchemaTextOnce()) as { properties: Record<string, unknown> };
    expect(Object.keys(schema.properties).sort()).toEqual(["bake", "gates", "manual_promotion", "waves"]);
  });
});

function rolloutPolicySchemaTextOnce(): string {
  return rolloutPolicyJsonSchemaText();
}
