/**
 * The validators the tests run come from `npm run setup` (tools/setup/validators.sh writes wrappers into
 * .tools/bin) or the PATH, through one helper (test/support/validators.ts). A missing one fails with
 * one line naming the set-up command.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findValidator, requireValidator, validatorPath, type Validator } from "../support/validators";

const ROOT = join(__dirname, "..", "..");

describe("finding a validator", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "validators-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const place = (folder: string, name: string, mode = 0o755) => {
    mkdirSync(join(dir, folder), { recursive: true });
    writeFileSync(join(dir, folder, name), "#!/bin/sh\n");
    chmodSync(join(dir, folder, name), mode);
    return join(dir, folder, name);
  };

  it("takes the set-up's .tools/bin before the PATH", () => {
    const fetched = place("clone/.tools/bin", "shellcheck");
    place("usr/bin", "shellcheck");
    expect(findValidator("shellcheck", join(dir, "clone"), join(dir, "usr/bin"))).toBe(fetched);
  });

  it("falls back to the PATH, in its order, skipping files that are not executable", () => {
    place("first", "promtool", 0o644);
    const second = place("second", "promtool");
    expect(findValidator("promtool", join(dir, "clone"), `${join(dir, "first")}:${join(dir, "second")}`)).toBe(second);
  });

  it("fails with one line naming the set-up command when neither has it", () => {
    place("usr/bin", "shellcheck");
    let error: Error | undefined;
    try {
      requireValidator("systemd-analyze", join(dir, "clone"), join(dir, "usr/bin"));
    } catch (thrown) {
      error = thrown as Error;
    }
    expect(error?.message).toBe("systemd-analyze not found in .tools/bin or on PATH: run `npm run setup`");
    expect(error?.stack).toBe("Error: systemd-analyze not found in .tools/bin or on PATH: run `npm run setup`");
  });
});

describe("the validators the tests run", () => {
  it.each([
    ["shellcheck", /^version: \d+\.\d+/m],
    ["systemd-analyze", /^systemd \d+ /],
    ["promtool", /^promtool, version \d+\.\d+/],
  ] as Array<[Validator, RegExp]>)("%s is installed and runs", (name, version) => {
    const result = spawnSync(validatorPath(name), ["--version"], { encoding: "utf8" });
    expect(result.stdout).toMatch(version);
    expect(result.status).toBe(0);
  });

  it("systemd-analyze verifies a unit, finding the units it depends on, and reports a broken one", () => {
    const dir = mkdtempSync(join(tmpdir(), "verify-"));
    try {
      // Default dependencies pull in sysinit.target and basic.target, which a machine without systemd
      // lacks: the set-up's wrapper points SYSTEMD_UNIT_PATH at the fetched package's units.
      writeFileSync(join(dir, "sample.service"), "[Unit]\nAfter=network-online.target\n\n[Service]\nExecStart=/bin/sleep 1\n\n[Install]\nWantedBy=multi-user.target\n");
      writeFileSync(join(dir, "broken.service"), "[Service]\nExecStart=/nonexistent/runner-fleet-probe\n");
      const good = spawnSync(validatorPath("systemd-analyze"), ["verify", join(dir, "sample.service")], { encoding: "utf8" });
      expect(good.stdout + good.stderr).toBe("");
      expect(good.status).toBe(0);
      const broken = spawnSync(validatorPath("systemd-analyze"), ["verify", join(dir, "broken.service")], { encoding: "utf8" });
      expect(broken.stderr).toContain("Command /nonexistent/runner-fleet-probe is not executable");
      expect(broken.status).not.toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("the set-up scripts, .ci/run and the fresh-machine check pass shellcheck", () => {
    const scripts = ["tools/setup.sh", "tools/setup/validators.sh", "tools/fresh-machine-check.sh", ".ci/run"].map((script) => join(ROOT, script));
    const result = spawnSync(validatorPath("shellcheck"), ["--severity=style", ...scripts], { encoding: "utf8" });
    expect(result.stdout).toBe("");
    expect(result.status).toBe(0);
  });
});
