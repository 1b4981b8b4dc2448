/**
 * Every systemd unit and drop-in a manager boots with, checked by the real `systemd-analyze verify`
 * (systemd 252, fetched by the set-up command): unknown keys, bad values, a missing executable or an
 * unknown dependency fail the test. The units are laid out in a scratch root as on the VM, next to a
 * stand-in of the unit the gitlab-runner package installs (fixtures/gitlab-runner.service), and verified
 * with --root, so nothing of this machine's own units is read but systemd's targets.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { RunnerModel } from "../../lib/model/schema";
import { managerBootFiles } from "../../lib/render/startup-script";
import { RUNNER_DROP_IN } from "../../lib/render/manager-units";
import type { BootFile } from "../../lib/render/boot-files";
import { exampleModel, modelWith } from "../support/models";
import { validatorPath } from "../support/validators";

const RUNNER_UNIT = readFileSync(join(__dirname, "fixtures", "gitlab-runner.service"), "utf8");

/** systemd's own units (targets, slices) that every unit depends on by default: from the fetched package, else this machine's. */
function systemdUnitDir(): string {
  const analyze = validatorPath("systemd-analyze");
  const candidates = [join(dirname(analyze), "..", "root", "lib", "systemd", "system"), join(dirname(analyze), "..", "root", "usr", "lib", "systemd", "system"), "/lib/systemd/system", "/usr/lib/systemd/system"];
  const found = candidates.find((dir) => existsSync(join(dir, "sysinit.target")));
  if (!found) throw new Error(`no sysinit.target next to ${analyze} or on this machine: run \`npm run setup\``);
  return found;
}

interface Verified {
  readonly status: number | null;
  readonly output: string;
}

/** Lays out `files` (and the runner's unit and executables) under a scratch root and verifies `units` there. */
function verify(files: readonly BootFile[], units: readonly string[], { runnerUnit = RUNNER_UNIT } = {}): Verified {
  const root = mkdtempSync(join(tmpdir(), "runner-fleet-units-"));
  try {
    const unitDir = join(root, "usr", "lib", "systemd", "system");
    mkdirSync(unitDir, { recursive: true });
    const source = systemdUnitDir();
    for (const name of readdirSync(source).filter((name) => /\.(target|slice)$/.test(name))) copyFileSync(join(source, name), join(unitDir, name));
    const put = (path: string, content: string, mode = 0o644) => {
      mkdirSync(join(root, dirname(path)), { recursive: true });
      writeFileSync(join(root, path), content);
      chmodSync(join(root, path), mode);
    };
    put("/etc/systemd/system/gitlab-runner.service", runnerUnit);
    put("/usr/bin/gitlab-runner", "#!/bin/sh\n", 0o755);
    for (const file of files) put(file.path, file.content, parseInt(file.mode, 8));
    const result = spawnSync(validatorPath("systemd-analyze"), ["verify", `--root=${root}`, "--man=no", ...units], { encoding: "utf8" });
    if (result.error) throw result.error;
    return { status: result.status, output: `${result.stdout}${result.stderr}`.trim() };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

const unitNames = (files: readonly BootFile[]) =>
  files.filter((file) => /^\/etc\/systemd\/system\/[^/]+\.(service|timer)$/.test(file.path)).map((file) => file.path.split("/").pop()!);

const managers: Array<[string, RunnerModel]> = [
  ["cell-1 (Google Cloud)", exampleModel("cell-1")],
  ["cell-2 (AWS)", exampleModel("cell-2")],
  ["cell-2, local store", modelWith("cell-2", (draft) => { draft.secrets.store = "local"; })],
];

describe("the manager's systemd units, verified by systemd-analyze", () => {
  it.each(managers)("pass verify with no warning, the runner's drop-in included: %s", (_label, model) => {
    const files = managerBootFiles(model, model.shards[0], 0);
    const units = ["gitlab-runner.service", ...unitNames(files)];

    const { status, output } = verify(files, units);

    expect(output).toBe("");
    expect(status).toBe(0);
    expect(units.filter((unit) => unit.endsWith(".timer")).length).toBeGreaterThanOrEqual(2);
    expect(files.some((file) => file.path === RUNNER_DROP_IN)).toBe(true);
  });

  it("fails on an unknown key in the drop-in (the check can fail)", () => {
    const model = exampleModel("cell-2");
    const files = managerBootFiles(model, model.shards[0], 0).map((file) =>
      file.path === RUNNER_DROP_IN ? { ...file, content: `${file.content}KillMod=mixed\n` } : file,
    );

    const { output } = verify(files, ["gitlab-runner.service"]);

    expect(output).toMatch(/Unknown key 'KillMod'/);
  });

  it("fails when a timer's service runs a program the payload does not install", () => {
    const model = exampleModel("cell-1");
    const files = managerBootFiles(model, model.shards[0], 0).filter((file) => !file.path.endsWith("/runner-fleet-manager"));

    const { status, output } = verify(files, unitNames(files));

    expect(status).not.toBe(0);
    expect(output).toMatch(/runner-fleet-manager is not executable/);
  });
});
