/**
 * cloudHint reads which cloud a model file names without loading it (stacks/cloud-hint.ts): only the
 * synthesis threads' grouping of files depends on it, so anything it cannot read is undefined, not an error.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MODELS_DIR } from "../support/models";
import { cloudHint } from "../../stacks/cloud-hint";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "cloud-hint-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function hintOf(text: string): string | undefined {
  const file = join(dir, "model.yaml");
  writeFileSync(file, text);
  return cloudHint(file);
}

test("reads the examples' clouds", () => {
  expect([cloudHint(join(MODELS_DIR, "cell-1.yaml")), cloudHint(join(MODELS_DIR, "cell-2.yaml"))]).toEqual(["google", "aws"]);
});

test("finds provider under cloud past comments, blank lines, quotes and other keys, and not under another key", () => {
  expect(hintOf('cell:\n  id: x\ncloud:   # where\n\n  # first the region\n  region: eu\n  provider: "aws"\nnetwork:\n  provider: google\n')).toBe("aws");
  expect(hintOf("cloud:\r\n  provider: 'google'\r\n")).toBe("google");
  expect(hintOf("cloud:\n  region: eu\nnetwork:\n  provider: google\n")).toBeUndefined();
});

test("is undefined for what it does not read: flow style, no cloud, a missing file", () => {
  expect(hintOf("cloud: { provider: aws }\n")).toBeUndefined();
  expect(hintOf("cell:\n  id: x\n")).toBeUndefined();
  expect(cloudHint(join(dir, "missing.yaml"))).toBeUndefined();
});
