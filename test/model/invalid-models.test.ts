import { mkdtempSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runBin, STACK_TRACE_LINE } from "../support/cli";
import { INVALID_CASES } from "./invalid-cases";

describe("bin/prepare on invalid models", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "invalid-models-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("covers at least 25 distinct invalid models", () => {
    expect(new Set(INVALID_CASES.map((c) => c.name)).size).toBeGreaterThanOrEqual(25);
  });

  it.each(INVALID_CASES.map((c, index) => [c.name, c, index] as const))("fails when given %s", (_name, invalid, index) => {
    // GIVEN a model file with one problem, in a models directory of its own
    const modelsDir = join(dir, `case-${index}`);
    const file = join(modelsDir, "cell-9.yaml");
    require("node:fs").mkdirSync(modelsDir);
    if (invalid.content !== undefined) writeFileSync(file, invalid.content);

    // WHEN prepare validates it
    const result = runBin("prepare", ["--model", file, "--models-dir", modelsDir]);

    // THEN it exits 2, points at file:line:col and says what was expected, without a stack trace
    expect(result.status).toBe(2);
    const output = result.stdout + result.stderr;
    expect(output).toContain(`${file}:${invalid.line}:${invalid.column}:`);
    for (const text of invalid.mentions) expect(output).toContain(text);
    expect(output).not.toMatch(STACK_TRACE_LINE);
    // and it has no side effects: no schema written next to an invalid model
    expect(existsSync(join(modelsDir, "schema.json"))).toBe(false);
  });

  it("reports every problem of a file at once", () => {
    const file = join(dir, "many.yaml");
    writeFileSync(
      file,
      INVALID_CASES.find((c) => c.name.startsWith("an unknown nested key"))!.content!.toString().replace("id: cell-9", "id: Cell 9"),
    );
    const result = runBin("prepare", ["--model", file, "--json"]);
    expect(result.status).toBe(2);
    const report = JSON.parse(result.stdout);
    const lines = report.models[0].errors.map((issue: { line: number; column: number }) => `${issue.line}:${issue.column}`);
    expect(lines).toEqual(expect.arrayContaining(["2:7", "18:7"]));
    expect(lines.length).toBeGreaterThanOrEqual(3);
  });
});
