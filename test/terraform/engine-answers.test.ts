/**
 * probeEngine asks each engine once per process for the same executable and environment, and asks
 * again when either changes: a program that runs many commands in one process (the package's API, the
 * test suite) should not start a 100 MB binary for every command, and must never keep an old answer.
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { probeEngine } from "../../lib/terraform/toolchain-check";

/** A stand-in engine that answers `version -json` with $VERSION_ANSWER (or 1.9.0) and counts its starts in a file beside it. */
function writeEngine(dir: string, version = "1.9.0"): void {
  const file = join(dir, "terraform");
  writeFileSync(
    file,
    [
      "#!/bin/sh",
      `echo x >> "${join(dir, "starts")}"`,
      `echo "{\\"terraform_version\\": \\"\${VERSION_ANSWER:-${version}}\\"}"`,
      "",
    ].join("\n"),
  );
  chmodSync(file, 0o755);
}

const startsIn = (dir: string): number => readFileSync(join(dir, "starts"), "utf8").trim().split("\n").length;

describe("probeEngine's answers", () => {
  let dir: string;
  let env: NodeJS.ProcessEnv;

  beforeEach(() => {
    // GIVEN a stand-in terraform alone on PATH
    dir = mkdtempSync(join(tmpdir(), "engine-answers-"));
    writeEngine(dir);
    env = { PATH: `${dir}:/usr/bin:/bin` };
  });

  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("asks the engine once for the same executable and environment", () => {
    // WHEN it is probed three times
    const answers = [probeEngine("terraform", env), probeEngine("terraform", env), probeEngine("terraform", { ...env })];
    // THEN it started once and every answer is its answer
    expect(startsIn(dir)).toBe(1);
    expect(answers).toEqual(Array(3).fill({ name: "terraform", version: "1.9.0", supported: true }));
  });

  it("asks again when the environment differs", () => {
    // WHEN it is probed with another value of a variable the engine reads
    probeEngine("terraform", env);
    const other = probeEngine("terraform", { ...env, VERSION_ANSWER: "1.4.2" });
    // THEN the engine answered again, with what that environment makes it say
    expect(startsIn(dir)).toBe(2);
    expect(other).toEqual({ name: "terraform", version: "1.4.2", supported: false });
  });

  it("asks again when the executable was replaced", () => {
    // WHEN the binary is written again (an upgrade) between two probes
    probeEngine("terraform", env);
    writeEngine(dir, "1.11.4");
    const after = probeEngine("terraform", env);
    // THEN the new binary was asked
    expect(startsIn(dir)).toBe(2);
    expect(after?.version).toBe("1.11.4");
  });

  it("finds no engine where PATH has none, without starting a process, and keeps nothing for it", () => {
    // GIVEN a PATH without terraform (a folder of that name is no executable, for execvp either)
    const empty = mkdtempSync(join(tmpdir(), "engine-answers-empty-"));
    mkdirSync(join(empty, "terraform"));
    // The module object itself (an `import *` would be a copy the code under test does not call through).
    const spawns = jest.spyOn(require("node:child_process") as typeof import("node:child_process"), "spawnSync");
    try {
      // WHEN it is probed, then the engine is put there and probed again
      expect(probeEngine("terraform", { PATH: empty })).toBeUndefined();
      expect(spawns).not.toHaveBeenCalled();
      rmSync(join(empty, "terraform"), { recursive: true });
      writeEngine(empty);
      // THEN the second probe finds it
      expect(probeEngine("terraform", { PATH: empty })?.version).toBe("1.9.0");
    } finally {
      spawns.mockRestore();
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
