/**
 * The config timer (scripts/manager/live-config.sh, `runner-fleet-manager refresh-config`) on a booted manager,
 * against the stub store: a config.toml the stack changed reaches the running manager without a new VM, live
 * when only settings gitlab-runner reloads changed (lib/render/config-reload.ts), with a graceful restart when
 * one it does not reload changed, and not at all when the store answers with something runner-fleet did not render.
 */
import { randomBytes } from "node:crypto";
import { parse } from "smol-toml";
import { liveConfigContent } from "../../lib/render/live-config";
import { renderConfigToml } from "../../lib/render/manager-files";
import type { RunnerModel } from "../../lib/model/schema";
import { modelWith } from "../support/models";
import { expectSucceeded, managerPayload, ScriptSandbox, type ScriptRun } from "./support/script-sandbox";
import { firstBoot } from "./support/shared-boots";

const CONFIG = "etc/gitlab-runner/config.toml";
const systemctlCalls = (run: ScriptRun) => run.calls.filter((call) => call.name === "systemctl").map((call) => call.args.join(" "));
type Policy = { idle_count: number };
const runnerEntry = (sandbox: ScriptSandbox) =>
  (parse(sandbox.file(CONFIG)) as { runners: Array<{ token: string; autoscaler: { max_instances: number; policy: Policy[] } }> }).runners[0];

let sandbox: ScriptSandbox;
beforeEach(() => {
  sandbox = new ScriptSandbox();
});
afterEach(() => sandbox.dispose());

describe.each([
  ["cell-1", "Secret Manager"],
  ["cell-2", "SSM"],
] as const)("config timer (%s, %s)", (cell, _store) => {
  const model = modelWith(cell, () => {});
  const changed = (change: (draft: RunnerModel) => void) => {
    const next = modelWith(cell, change);
    return liveConfigContent(renderConfigToml(next, next.shards[0], 0));
  };
  const script = managerPayload(model, model.shards[0], 0);
  const accessToken = `ya29.${randomBytes(24).toString("base64url")}`;

  /** The VM after its first boot (copied from one boot per file); the token it runs with. */
  function boot(): string {
    const booted = firstBoot(script);
    expectSucceeded(booted.first);
    sandbox.copyFrom(booted.sandbox);
    return booted.runnerToken;
  }
  const refresh = (token: string) =>
    sandbox.runInstalled(script, { STUB_RUNNER_TOKEN: token, STUB_ACCESS_TOKEN: accessToken, STUB_ACTIVE_CHECKS: "3", STUB_FINAL_STATE: "inactive" }, ["refresh-config"]);

  it("writes nothing while the stored config.toml is the one the manager runs", () => {
    const token = boot();
    const before = sandbox.file(CONFIG);

    const run = refresh(token);

    expectSucceeded(run);
    expect(sandbox.file(CONFIG)).toBe(before);
    expect(systemctlCalls(run)).toEqual([]);
  });

  it("applies a changed autoscaling policy under the running runner: no stop, no restart", () => {
    const token = boot();
    const idle = runnerEntry(sandbox).autoscaler.policy.map((policy) => policy.idle_count);
    sandbox.setStoredConfig(changed((draft) => void (draft.shards[0].autoscaling.policies[0].idle_count += 3)));

    const run = refresh(token);

    expectSucceeded(run);
    expect(run.stderr).toContain("gitlab-runner reloads it");
    expect(runnerEntry(sandbox).autoscaler.policy.map((policy) => policy.idle_count)).not.toEqual(idle);
    expect(runnerEntry(sandbox).token).toBe(token);
    expect(systemctlCalls(run).filter((call) => /^(stop|restart) gitlab-runner/.test(call))).toEqual([]);
  });

  it("restarts the runner gracefully on this VM when max_instances changed (the taskscaler reads it once)", () => {
    const token = boot();
    sandbox.setStoredConfig(changed((draft) => void (draft.shards[0].workers.max_instances += 5)));

    const run = refresh(token);

    expectSucceeded(run);
    expect(run.stderr).toContain("restarting it gracefully on this VM");
    const calls = systemctlCalls(run);
    const stopAt = calls.indexOf("stop gitlab-runner");
    expect(stopAt).toBeGreaterThan(-1);
    expect(calls.indexOf("restart gitlab-runner")).toBeGreaterThan(stopAt);
    expect(runnerEntry(sandbox).autoscaler.max_instances).toBe(model.shards[0].workers.max_instances + 5);
  });

  it("fails when the store answers with something runner-fleet did not render, and keeps the running config.toml", () => {
    const token = boot();
    const before = sandbox.file(CONFIG);
    sandbox.setStoredConfig('concurrent = 1000\n[[runners]]\n  token = "x"\n');

    const run = refresh(token);

    expect(run.status).toBe(1);
    expect(run.stderr).toContain("is not one runner-fleet rendered");
    expect(sandbox.file(CONFIG)).toBe(before);
  });
});
