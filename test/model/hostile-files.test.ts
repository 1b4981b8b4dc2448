/**
 * Files written to hurt the loader: each is refused with exit 2 and file:line:col,
 * never a stack trace or a hang, also under --json; a directory with such files
 * still has its other models validated; a file that is not a model is not echoed.
 * The cases run in this process, through the path bin/prepare takes (runInProcess: the command, the one
 * error handler, the exit code), with no engine on PATH: prepare's toolchain check would start terraform
 * (and look for tofu) per case, and the cases are about the model (the check is covered in
 * test/commands/prepare.test.ts). /dev/zero and provision run the executables themselves.
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadModelFile } from "../../lib/model/load";
import { MAX_MODEL_FILE_BYTES } from "../../lib/model/read-model-file";
import { runBin, runInProcess, STACK_TRACE_LINE } from "../support/cli";
import { MODELS_DIR } from "../support/models";

const GOOD_MODEL = readFileSync(join(MODELS_DIR, "cell-1.yaml"), "utf8");

/** Nine levels of nine aliases each: 9^9 nodes when expanded. */
const ALIAS_BOMB =
  'l0: &l0 ["x","x","x","x","x","x","x","x","x"]\n' +
  Array.from({ length: 8 }, (_, level) => `l${level + 1}: &l${level + 1} [${Array(9).fill(`*l${level}`).join(",")}]\n`).join("") +
  GOOD_MODEL;

const HOSTILE: Record<string, { text: string; at: string; says: string }> = {
  "alias-bomb": { text: ALIAS_BOMB, at: ":2:", says: "expected aliases that expand to at most 100 nodes" },
  "merge-undefined": { text: GOOD_MODEL.replace("cell:\n", "cell:\n  <<: *undefined\n"), at: ":", says: "cell.<<: expected an alias to an anchor defined before it, received *undefined" },
  "lone-surrogate": { text: GOOD_MODEL.replace(/image: "?ubuntu[^\n]*/, 'image: "ubuntu\\ud800"'), at: ":", says: "expected valid Unicode text, received a lone surrogate" },
  "alias-cycle": { text: `cycle: &c [*c]\n${GOOD_MODEL}`, at: ":1:", says: "cycle[0]: expected an alias outside the node it refers to" },
  "too-big": { text: `${GOOD_MODEL}#${"x".repeat(MAX_MODEL_FILE_BYTES)}\n`, at: ":1:1:", says: "expected a model file of at most 1048576 bytes (1 MiB)" },
};

const NO_ENGINE_ENV = { ...process.env, PATH: "/usr/bin:/bin" };
const prepareInProcess = (args: readonly string[]) => runInProcess("prepare", args, { env: NO_ENGINE_ENV });

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "hostile-files-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function writeHostile(name: string): string {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, HOSTILE[name].text);
  return file;
}

describe("hostile model files", () => {
  it("has a lone surrogate where a free-text value is (not one a pattern refuses anyway)", () => {
    expect(HOSTILE["lone-surrogate"].text).toContain('"ubuntu\\ud800"');
  });

  it.each(Object.keys(HOSTILE))("refuses %s with exit 2 and file:line:col, in text and --json", async (name) => {
    const file = writeHostile(name);
    const { at, says } = HOSTILE[name];

    const text = await prepareInProcess(["--model", file]);
    expect(text.status).toBe(2);
    expect(text.stdout).toContain(`${file}${at}`);
    expect(text.stdout).toMatch(new RegExp(`${file}:\\d+:\\d+: .*${says.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`));
    expect(text.stdout + text.stderr).not.toMatch(STACK_TRACE_LINE);
    expect(text.stderr).not.toContain("internal error");

    const json = await prepareInProcess(["--model", file, "--json"]);
    expect(json.status).toBe(2);
    const report = JSON.parse(json.stdout);
    expect(report.models[0]).toMatchObject({ file, valid: false });
    expect(report.models[0].errors[0]).toMatchObject({ file, line: expect.any(Number), column: expect.any(Number) });
    expect(report.models[0].errors[0].expected).toContain(says.split(", received")[0].replace(/^[^:]+: expected /, "").replace(/^expected /, ""));
  });

  it("refuses /dev/zero at once instead of reading it forever", () => {
    const started = Date.now();
    const result = runBin("prepare", ["--model", "/dev/zero", "--json"]);
    expect(result.status).toBe(2);
    expect(JSON.parse(result.stdout).models[0].errors[0]).toMatchObject({ line: 1, column: 1, expected: "a regular file", received: "a character device" });
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  it("does not echo a file that is not a model (--model /etc/passwd)", async () => {
    const secretish = join(dir, "passwd.yaml");
    const content = "root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n";
    writeFileSync(secretish, content);
    for (const args of [["--model", secretish], ["--model", secretish, "--json"], ["--model", "/etc/passwd"]]) {
      const result = await prepareInProcess(args);
      expect(result.status).toBe(2);
      expect(result.stdout + result.stderr).toContain("a mapping at the top level");
      expect(result.stdout + result.stderr).not.toContain("root:x:0:0");
      expect(result.stdout + result.stderr).not.toContain("/bin/bash");
    }
  });

  it("validates the other models of a directory when some are hostile", async () => {
    copyFileSync(join(MODELS_DIR, "cell-1.yaml"), join(dir, "cell-1.yaml"));
    for (const name of Object.keys(HOSTILE)) writeHostile(name);

    const result = await prepareInProcess(["--models-dir", dir, "--json"]);
    expect(result.status).toBe(2);
    const report = JSON.parse(result.stdout) as { models: Array<{ file: string; valid: boolean }> };
    expect(report.models.find((model) => model.file.endsWith("cell-1.yaml"))).toMatchObject({ valid: true });
    expect(report.models.filter((model) => !model.valid)).toHaveLength(Object.keys(HOSTILE).length);
  });

  it("refuses them in provision too, with exit 2 and no stack trace", () => {
    const result = runBin("provision", ["--model", writeHostile("alias-bomb"), "--dry-run"]);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain("expected aliases that expand to at most 100 nodes");
    expect(result.stderr).not.toMatch(STACK_TRACE_LINE);
  });

  it("still loads models that use anchors and aliases sensibly", () => {
    const file = join(dir, "cell-1.yaml");
    writeFileSync(file, GOOD_MODEL.replace("concurrent: 60", "concurrent: &slots 60").replace("max_instances: 60", "max_instances: *slots"));
    expect(loadModelFile(file).model.shards[0].workers.max_instances).toBe(60);
  });
});
