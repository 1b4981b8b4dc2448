/**
 * Static checks of the boot: the plain scripts under scripts/ pass shellcheck as they are, and every
 * rendered startup payload passes it too, keeps to strict mode, carries no token, quotes every file it
 * writes and fits the clouds' size limits. The behaviour is exercised in manager-script-run.test.ts,
 * manager-lifecycle-run.test.ts, worker-script-run.test.ts and the system tests (test/system/).
 */
import { gunzipSync } from "node:zlib";
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { Testing, TerraformStack } from "cdktf";
import { encodeUserData } from "../../constructs/aws/launch-template-parts";
import { spawnSync } from "node:child_process";
import type { RunnerModel } from "../../lib/model/schema";
import { renderManagerStartupScript, renderWorkerStartupScript } from "../../lib/render/manager-files";
import { SCRIPTS_DIR } from "../../lib/render/boot-files";
import { PAYLOAD_HEREDOC_DELIMITER } from "../../lib/render/boot-payload";
import { managerBootFiles, workerBootFiles } from "../../lib/render/startup-script";
import { exampleModel, modelWith } from "../support/models";
import { validatorPath } from "../support/validators";

interface RenderedScript {
  readonly label: string;
  readonly kind: "manager" | "worker";
  readonly cloud: "google" | "aws";
  readonly script: string;
  readonly files: readonly { path: string }[];
}

function scriptsOf(label: string, model: RunnerModel): RenderedScript[] {
  return model.shards.flatMap((shard) => [
    ...Array.from({ length: shard.managers.count }, (_, slot) => ({
      label: `${label}/${shard.name}/manager-${slot}`,
      kind: "manager" as const,
      cloud: model.cloud.provider,
      script: renderManagerStartupScript(model, shard, slot),
      files: managerBootFiles(model, shard, slot),
    })),
    {
      label: `${label}/${shard.name}/worker`,
      kind: "worker" as const,
      cloud: model.cloud.provider,
      script: renderWorkerStartupScript(model, shard),
      files: workerBootFiles(model, shard),
    },
  ]);
}

const localStore = (name: "cell-1" | "cell-2") =>
  modelWith(name, (model) => {
    model.secrets.store = "local";
  });

const scripts = [
  ...scriptsOf("cell-1", exampleModel("cell-1")),
  ...scriptsOf("cell-2", exampleModel("cell-2")),
  ...scriptsOf("cell-1 (local store)", localStore("cell-1")),
  ...scriptsOf("cell-2 (local store)", localStore("cell-2")),
];

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}
const plainScripts = filesUnder(SCRIPTS_DIR).map((path) => ({ name: relative(SCRIPTS_DIR, path), path }));

function shellcheck(args: readonly string[], input?: string): { status: number | null; output: string } {
  const result = spawnSync(validatorPath("shellcheck"), ["--shell=bash", "--format=gcc", ...args], { input, encoding: "utf8", cwd: SCRIPTS_DIR });
  if (result.error) throw result.error;
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

/**
 * One shellcheck run over many files (its start-up was most of each check): every file's findings (the
 * gcc format starts each line with the file's path), whatever no file claims, and the run's exit status.
 */
function shellcheckEach(paths: readonly string[], args: readonly string[] = []): { status: number | null; findings: Map<string, string>; unclaimed: string } {
  const { status, output } = shellcheck([...args, ...paths]);
  const lines = output.split("\n").filter((line) => line !== "");
  const findings = new Map(paths.map((path) => [path, lines.filter((line) => line.startsWith(`${path}:`)).join("\n")]));
  return { status, findings, unclaimed: lines.filter((line) => !paths.some((path) => line.startsWith(`${path}:`))).join("\n") };
}

describe("the boot scripts, as files", () => {
  it("are the manager's entry, its shared parts, each cloud's and store's half, and the worker's entry", () => {
    expect(plainScripts.map((script) => script.name).sort()).toEqual([
      "manager/cloud/aws.sh",
      "manager/cloud/google.sh",
      "manager/common.sh",
      "manager/install.sh",
      "manager/live-config.sh",
      "manager/runner-config.sh",
      "manager/runner-fleet-manager",
      "manager/service.sh",
      "manager/store/aws-ssm.sh",
      "manager/store/google-secret-manager.sh",
      "manager/store/local.sh",
      "worker/runner-fleet-worker",
    ]);
  });

  describe("pass shellcheck as they are, following what they source", () => {
    let checked: ReturnType<typeof shellcheckEach>;
    beforeAll(() => {
      checked = shellcheckEach(plainScripts.map((script) => script.path), ["--external-sources", "--source-path=SCRIPTDIR"]);
    });

    it.each(plainScripts)("$name", ({ path }) => {
      expect(checked.findings.get(path)).toBe("");
    });

    it("all of them, in one run: exit 0, nothing else said", () => {
      expect(checked.unclaimed).toBe("");
      expect(checked.status).toBe(0);
    });
  });

  it("fails shellcheck on a broken script (the check can fail)", () => {
    const { status, output } = shellcheck(["-"], "#!/usr/bin/env bash\nrm -rf $DIR/*\n");

    expect(status).not.toBe(0);
    expect(output).toMatch(/SC2086|SC2115/);
  });

  it.each(plainScripts.filter((script) => !script.name.endsWith(".sh")))("entry $name: bash, strict mode with ERR in functions, never traced", ({ path }) => {
    const text = require("node:fs").readFileSync(path, "utf8") as string;

    expect(text.split("\n")[0]).toBe("#!/usr/bin/env bash");
    expect(text).toMatch(/^set -Eeuo pipefail$/m);
    expect(text).toMatch(/^\s*trap '.*\$LINENO.*' ERR$/m);
    expect(text).not.toMatch(/^\s*set\s+(-[a-z]*x|-o\s+xtrace)/m);
  });
});

describe("rendered startup payloads", () => {
  describe("pass shellcheck", () => {
    let dir: string;
    const files = scripts.map((_script, index) => `payload-${index}.sh`);
    let checked: ReturnType<typeof shellcheckEach>;
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), "payloads-"));
      scripts.forEach(({ script }, index) => writeFileSync(join(dir, files[index]), script));
      checked = shellcheckEach(files.map((file) => join(dir, file)));
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it.each(scripts.map((script, index) => [script.label, index] as const))("%s", (_label, index) => {
      expect(checked.findings.get(join(dir, files[index]))).toBe("");
    });

    it("all of them, in one run: exit 0, nothing else said", () => {
      expect(checked.unclaimed).toBe("");
      expect(checked.status).toBe(0);
    });
  });

  it.each(scripts)("start with a bash shebang and strict mode, and never trace: $label", ({ script }) => {
    const lines = script.split("\n");

    expect(lines[0]).toMatch(/^#!(\/usr\/bin\/env bash|\/bin\/bash)$/);
    expect(lines.slice(0, 15)).toContain("set -euo pipefail");
    expect(script).not.toMatch(/^\s*set\s+(-[a-z]*x|-o\s+xtrace)/m);
  });

  it.each(scripts)("contain no token-shaped string: $label", ({ script }) => {
    expect(script).not.toMatch(/glrt-[A-Za-z0-9_.-]{8,}/);
    expect(script).not.toMatch(/GR1348941/);
  });

  it.each(scripts)("write each of their files from a quoted heredoc (nothing in a file is expanded by bash): $label", ({ script, files }) => {
    const writes = [...script.matchAll(/^put_file '([^']+)' (0[0-7]{3}) <<'([A-Z_]+)'$/gm)];

    expect(writes.map((write) => write[1])).toEqual(files.map((file) => file.path));
    expect(new Set(writes.map((write) => write[3]))).toEqual(new Set([PAYLOAD_HEREDOC_DELIMITER]));
    expect(script.split("\n").filter((line) => line === PAYLOAD_HEREDOC_DELIMITER)).toHaveLength(files.length);
  });

  it.each(scripts.filter((script) => script.cloud === "aws"))("fit EC2's 16 KB user data limit as sent (gzip-compressed when larger): $label", ({ script }) => {
    const userData = Buffer.from(encodeUserData(new TerraformStack(Testing.app(), "user-data"), "userData", script), "base64");
    expect(userData.length).toBeLessThanOrEqual(16 * 1024);
    const sent = userData[0] === 0x1f && userData[1] === 0x8b ? gunzipSync(userData) : userData;
    expect(sent.toString("utf8")).toBe(script);
  });

  // Compute Engine: a metadata value holds at most 256 KB (Compute Engine docs, "About VM metadata", limits).
  it.each(scripts.filter((script) => script.cloud === "google"))("fit a Compute Engine metadata value (256 KB): $label", ({ script }) => {
    expect(Buffer.byteLength(script, "utf8")).toBeLessThanOrEqual(256 * 1024);
  });
});
