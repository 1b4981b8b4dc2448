/**
 * `provision --json` on an invalid model lists each problem as an object, as `prepare --json`
 * does (issue 23), so a pipeline can point at file:line:col without parsing one long string.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runInProcess } from "../support/cli";
import { withLine } from "../model/invalid-cases";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "provision-json-errors-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

it("provision --dry-run --json gives errors[] with path, line, column, expected and received", async () => {
  const file = join(dir, "cell-9.yaml");
  writeFileSync(file, withLine(18, "      max_instances: ten").replace("  id: cell-9", "  id: Cell_9"));
  const result = await runInProcess("provision", ["--model", file, "--dry-run", "--out", join(dir, "cdktf.out"), "--json"]);
  expect(result.status).toBe(2);
  const report = JSON.parse(result.stdout);
  expect(report).toMatchObject({ ok: false, exitCode: 2 });
  // Three, in one pass: the id is not a DNS label, it differs from the file's name, and max_instances is text.
  expect(report.errors).toEqual([
    expect.objectContaining({ file, path: ["cell", "id"], line: 2, column: 7, expected: expect.stringContaining("a DNS label"), received: '"Cell_9"' }),
    expect.objectContaining({ file, path: ["cell", "id"], line: 2, column: 7, expected: expect.stringContaining("the file's name"), received: '"Cell_9"' }),
    expect.objectContaining({ file, path: ["shards", 0, "workers", "max_instances"], line: 18, column: 22, expected: "a number", received: '"ten"' }),
  ]);
});

it("keeps the one-line error for failures that are not a model's", async () => {
  const result = await runInProcess("provision", ["--model", join(dir, "absent.yaml"), "--dry-run", "--json"]);
  expect(result.status).toBe(2);
  const report = JSON.parse(result.stdout);
  expect(typeof report.error).toBe("string");
});
