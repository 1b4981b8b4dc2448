import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runBin, runInProcess, STACK_TRACE_LINE, type CliResult } from "../support/cli";
import { INVALID_CASES, type InvalidCase } from "./invalid-cases";

describe("prepare on invalid models", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "invalid-models-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("covers at least 25 distinct invalid models", () => {
    expect(new Set(INVALID_CASES.map((c) => c.name)).size).toBeGreaterThanOrEqual(25);
  });

  /** A models directory of its own holding `invalid` as cell-9.yaml, and prepare's arguments to validate it. */
  const caseFiles = (invalid: InvalidCase, index: number) => {
    const modelsDir = join(dir, `case-${index}`);
    const file = join(modelsDir, "cell-9.yaml");
    mkdirSync(modelsDir);
    if (invalid.content !== undefined) writeFileSync(file, invalid.content);
    return { modelsDir, file, args: ["--model", file, "--models-dir", modelsDir] };
  };

  /** Exit 2, file:line:col and what was expected, no stack trace, and no side effects. */
  const expectRejected = (result: CliResult, invalid: InvalidCase, files: { modelsDir: string; file: string }) => {
    expect(result.status).toBe(2);
    const output = result.stdout + result.stderr;
    expect(output).toContain(`${files.file}:${invalid.line}:${invalid.column}:`);
    for (const text of invalid.mentions) expect(output).toContain(text);
    expect(output).not.toMatch(STACK_TRACE_LINE);
    // No schema is written next to an invalid model.
    expect(existsSync(join(files.modelsDir, "schema.json"))).toBe(false);
  };

  // No engine on PATH: prepare's toolchain check would start terraform (and look for tofu) per case, and the
  // corpus is about the model (the check itself is covered in test/commands/prepare.test.ts).
  const NO_ENGINE_ENV = { ...process.env, PATH: "/usr/bin:/bin" };

  // The corpus runs in this process, through the path bin/prepare takes (runCli: the command, the
  // error handler, the exit code); the smoke test below runs the executable itself.
  it.each(INVALID_CASES.map((c, index) => [c.name, c, index] as const))("fails when given %s", async (_name, invalid, index) => {
    const files = caseFiles(invalid, index);
    expectRejected(await runInProcess("prepare", files.args, { env: NO_ENGINE_ENV }), invalid, files);
  });

  it("bin/prepare itself exits 2 on an invalid model, with the place and no stack trace", () => {
    const invalid = INVALID_CASES.find((c) => c.name.startsWith("a duplicate key"))!;
    const files = caseFiles(invalid, INVALID_CASES.length);
    expectRejected(runBin("prepare", files.args), invalid, files);
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
