/**
 * Static checks of every rendered startup script: shellcheck, strict mode, no
 * token, the 0600 config write and the idempotency guards. The behaviour itself
 * is exercised in manager-script-run.test.ts and worker-script-run.test.ts.
 */
import { gunzipSync } from "node:zlib";
import { Testing, TerraformStack } from "cdktf";
import { encodeUserData } from "../../constructs/aws/launch-template-parts";
import { spawnSync } from "node:child_process";
import type { RunnerModel } from "../../lib/model/schema";
import { renderManagerStartupScript, renderWorkerStartupScript } from "../../lib/render/manager-files";
import { exampleModel, modelWith } from "../support/models";
import { validatorPath } from "../support/validators";

interface RenderedScript {
  readonly label: string;
  readonly kind: "manager" | "worker";
  readonly cloud: "google" | "aws";
  readonly script: string;
}

function scriptsOf(label: string, model: RunnerModel): RenderedScript[] {
  return model.shards.flatMap((shard) => [
    ...Array.from({ length: shard.managers.count }, (_, slot) => ({
      label: `${label}/${shard.name}/manager-${slot}`,
      kind: "manager" as const,
      cloud: model.cloud.provider,
      script: renderManagerStartupScript(model, shard, slot),
    })),
    { label: `${label}/${shard.name}/worker`, kind: "worker" as const, cloud: model.cloud.provider, script: renderWorkerStartupScript(model, shard) },
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
const managers = scripts.filter((script) => script.kind === "manager");

function shellcheck(script: string): { status: number | null; output: string } {
  const result = spawnSync(validatorPath("shellcheck"), ["--shell=bash", "--format=gcc", "-"], { input: script, encoding: "utf8" });
  if (result.error) throw result.error;
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

describe("rendered startup scripts", () => {
  it.each(scripts)("pass shellcheck: $label", ({ script }) => {
    const { status, output } = shellcheck(script);

    expect(output).toBe("");
    expect(status).toBe(0);
  });

  it("fails shellcheck on a broken script (the check can fail)", () => {
    const { status, output } = shellcheck("#!/usr/bin/env bash\nrm -rf $DIR/*\n");

    expect(status).not.toBe(0);
    expect(output).toMatch(/SC2086|SC2115/);
  });

  it.each(scripts)("start with a bash shebang and strict mode, and never trace: $label", ({ script }) => {
    const lines = script.split("\n");

    expect(lines[0]).toMatch(/^#!(\/usr\/bin\/env bash|\/bin\/bash)$/);
    expect(lines.slice(0, 15)).toContain("set -euo pipefail");
    expect(script).not.toMatch(/^\s*set\s+(-[a-z]*x|-o\s+xtrace)/m);
    expect(script).toMatch(/^trap '.*\$LINENO.*' ERR$/m);
  });

  it.each(scripts)("contain no token-shaped string: $label", ({ script }) => {
    expect(script).not.toMatch(/glrt-[A-Za-z0-9_.-]{8,}/);
    expect(script).not.toMatch(/GR1348941/);
  });

  it.each(managers)("write config.toml with mode 0600 under umask 077 and an atomic move: $label", ({ script }) => {
    const writer = script.slice(script.indexOf("write_runner_config() {"));

    expect(writer).toMatch(/umask 077/);
    expect(writer).toMatch(/mktemp "\$\{RUNNER_CONFIG_DIR\}\/\.config\.toml\.XXXXXX"/);
    expect(writer).toMatch(/chmod 0600 "\$tmp"/);
    expect(writer).toMatch(/mv -f "\$tmp" "\$RUNNER_CONFIG_FILE"/);
    expect(script).toContain('readonly RUNNER_CONFIG_FILE="${RUNNER_CONFIG_DIR}/config.toml"');
  });

  it.each(managers)("check the installed gitlab-runner version before installing it: $label", ({ script }) => {
    const installer = script.slice(script.indexOf("install_gitlab_runner() {"));
    const check = installer.indexOf('if [[ $installed == "$RUNNER_PACKAGE_VERSION" ]]; then');
    const install = installer.indexOf('"gitlab-runner=${RUNNER_PACKAGE_VERSION}"');

    expect(check).toBeGreaterThan(-1);
    expect(install).toBeGreaterThan(check);
    expect(script).toContain("readonly RUNNER_PACKAGE_VERSION='18.5.0-1'");
  });

  it.each(managers)("embed config.toml in a quoted heredoc (no expansion by bash): $label", ({ script }) => {
    expect(script).toContain("CONFIG_TEMPLATE=$(cat <<'GITLAB_RUNNER_CONFIG_TOML'\n");
    expect(script).toMatch(/\nGITLAB_RUNNER_CONFIG_TOML\n\)\n/);
  });

  it.each(managers.filter((script) => script.cloud === "aws"))("fit EC2's 16 KB user data limit as sent (gzip-compressed when larger): $label", ({ script }) => {
    const userData = Buffer.from(encodeUserData(new TerraformStack(Testing.app(), "user-data"), "userData", script), "base64");
    expect(userData.length).toBeLessThanOrEqual(16 * 1024);
    const sent = userData[0] === 0x1f && userData[1] === 0x8b ? gunzipSync(userData) : userData;
    expect(sent.toString("utf8")).toBe(script);
  });
});
