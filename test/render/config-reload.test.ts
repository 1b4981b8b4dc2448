/**
 * Which config.toml changes a running gitlab-runner takes live and which need a restart
 * (lib/render/config-reload.ts says where in its source each answer comes from), on the files
 * runner-fleet renders for real model changes.
 */
import { configChange, reloadClassOf, renderedSettings, restartDigest } from "../../lib/render/config-reload";
import { renderConfigToml } from "../../lib/render/config-toml";
import type { RunnerModel } from "../../lib/model/schema";
import { exampleModel, modelWith } from "../support/models";

const base = exampleModel("cell-1");
const config = (model: RunnerModel, slot = 0) => renderConfigToml(model, model.shards[0], slot);

test("an autoscaling policy change is live: gitlab-runner reconfigures its schedules on reload (provider.go, Acquire)", () => {
  const tweaked = modelWith("cell-1", (draft) => void (draft.shards[0].autoscaling.policies[0].idle_count += 3));
  const change = configChange(config(base), config(tweaked));
  expect(change.effect).toBe("live");
  expect(change.settings).toEqual([{ path: expect.stringMatching(/^runners\[0\]\.autoscaler\.policy\[\d+\]\.idle_count$/), class: "live" }]);
  expect(restartDigest(config(tweaked))).toBe(restartDigest(config(base)));
});

test("concurrent is live (multi.go, updateWorkers)", () => {
  const more = modelWith("cell-1", (draft) => void (draft.shards[0].managers.concurrent += 10));
  const change = configChange(config(base), config(more));
  expect(change.settings.map((setting) => setting.path)).toContain("concurrent");
  expect(change.effect).toBe("live");
});

test("max_instances restarts the runner: the taskscaler took it once, at init (provider.go); limit alone would be live", () => {
  const bigger = modelWith("cell-1", (draft) => void (draft.shards[0].workers.max_instances += 5));
  const change = configChange(config(base), config(bigger));
  expect(change.settings).toEqual(
    expect.arrayContaining([
      { path: "runners[0].limit", class: "live" },
      { path: "runners[0].autoscaler.max_instances", class: "restart" },
    ]),
  );
  expect(change.effect).toBe("restart");
  expect(restartDigest(config(bigger))).not.toBe(restartDigest(config(base)));
});

test("the same file is no change, and each slot's file names its own worker group (a restart setting)", () => {
  expect(configChange(config(base), config(base))).toEqual({ settings: [], effect: "none" });
  expect(configChange(config(base, 0), config(base, 1)).settings).toContainEqual({ path: "runners[0].autoscaler.plugin_config.name", class: "restart" });
});

test("settings it does not know to reload restart the runner, and the url and id never reload", () => {
  expect(reloadClassOf("runners.autoscaler.some_future_key")).toBe("restart");
  expect(reloadClassOf("listen_address")).toBe("restart");
  expect(reloadClassOf("runners.url")).toBe("restart");
  expect(reloadClassOf("runners.id")).toBe("restart");
  expect(reloadClassOf("runners.docker.image")).toBe("live");
});

test("reads every line runner-fleet renders, and fails when a line is not a setting", () => {
  const settings = renderedSettings(config(base));
  expect(settings.find((setting) => setting.path === "runners[0].autoscaler.connector_config.key_path")?.setting).toBe("runners.autoscaler.connector_config.key_path");
  expect(settings.filter((setting) => setting.setting === "runners.autoscaler.policy.periods").length).toBe(config(base).match(/\[\[runners\.autoscaler\.policy\]\]/g)!.length);
  expect(() => renderedSettings("concurrent = 1\nthis is not toml\n")).toThrow(/not a line of a rendered config.toml: this is not toml/);
});
