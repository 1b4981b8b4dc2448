/**
 * A model value holding a cdktf token marker would be resolved by cdktf into a
 * reference before any escaping: the loader refuses it, with its place in the file.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ModelValidationError, formatIssue } from "../../lib/model/issues";
import { parseModel } from "../../lib/model/load";
import { runBin, STACK_TRACE_LINE } from "../support/cli";
import { BASE_MODEL, withAppended } from "./invalid-cases";

function issuesOf(text: string): string[] {
  try {
    parseModel(text, "models/cell-9.yaml");
  } catch (error) {
    if (error instanceof ModelValidationError) return error.issues.map(formatIssue);
    throw error;
  }
  return [];
}

describe("cdktf token markers in model values", () => {
  it("fails when a docker image holds a string token marker, naming line:col, the value and the expectation", () => {
    const issues = issuesOf(withAppended('    docker: { image: "alpine:${TfToken[TOKEN.1]}" }'));
    expect(issues).toEqual([
      expect.stringMatching(/^models\/cell-9\.yaml:19:22: shards\[0\]\.docker\.image: expected text without a cdktf token marker .*, received "alpine:\$\{TfToken\[TOKEN\.1\]\}"$/),
    ]);
  });

  it("fails when network names hold list or map token markers, each reported", () => {
    const text = `${BASE_MODEL}network:\n  existing:\n    network: "#{TfToken[TOKEN.7]}"\n    subnets: ["&{TfToken[TOKEN.8]}"]\n`;
    const issues = issuesOf(text);
    expect(issues).toHaveLength(2);
    expect(issues[0]).toMatch(/:21:14: network\.existing\.network: expected text without a cdktf token marker/);
    expect(issues[1]).toMatch(/:22:15: network\.existing\.subnets\[0\]: expected text without a cdktf token marker/);
  });

  it("reports markers together with the schema's own problems", () => {
    const text = withAppended('    docker: { image: "${TfToken[TOKEN.2]}" }\nnetwork: { nat: "yes" }');
    const issues = issuesOf(text);
    expect(issues.some((issue) => issue.includes("docker.image: expected text without a cdktf token marker"))).toBe(true);
    expect(issues.some((issue) => issue.includes(`network.nat: expected true, false or "per-zone"`))).toBe(true);
  });

  it("accepts template-looking text that is not a marker: it reaches Terraform escaped, as written", () => {
    expect(issuesOf(withAppended('    docker: { image: "registry/${CI_PROJECT_PATH}:%{tag}" }'))).toEqual([]);
  });

  it("prepare and provision --dry-run exit 2 with the place in the file, no stack trace", () => {
    const dir = mkdtempSync(join(tmpdir(), "runner-fleet-markers-"));
    try {
      writeFileSync(join(dir, "cell-9.yaml"), withAppended('    docker: { image: "${TfToken[TOKEN.1]}" }'));
      for (const [name, args] of [
        ["prepare", ["--models-dir", dir]],
        ["provision", ["--model", join(dir, "cell-9.yaml"), "--dry-run", "--out", join(dir, "out")]],
      ] as const) {
        const result = runBin(name, args);
        const output = result.stdout + result.stderr;
        expect({ name, status: result.status }).toEqual({ name, status: 2 });
        expect(output).toContain("cell-9.yaml:19:22: shards[0].docker.image: expected text without a cdktf token marker");
        expect(output).not.toMatch(STACK_TRACE_LINE);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
