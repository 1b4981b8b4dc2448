/**
 * What a manager does when its token changes in the store, checked the same way on every cloud. The
 * expected behaviour depends on the runner version (lib/model/rotation-mode.ts): up to 19.1 a token
 * change under a running runner replaces its taskscaler and the workers with it, so the manager drains
 * first; from 19.2, with the runner ID in config.toml, the token is changed live.
 */
import { randomBytes } from "node:crypto";
import { rotationMode } from "../../../lib/model/rotation-mode";
import { storeToken, type Manager } from "./manager-boot";
import { CONFIG_FILE, RUNNER_UNIT, runnerServiceSettings, timerHasFired, timerIntervalSeconds, TOKEN_REFRESH_TIMER, waitForConfigToken, waitForRunnerSettled } from "./manager-checks";
import { tokenFingerprint, type StubCall } from "./stub-state";

/** Made at run time (URL-safe, as runner tokens are): no token-shaped string is kept in the repository. */
export const SECOND_TOKEN = `glrt-t1_${randomBytes(15).toString("base64url")}`;

/** A gitlab-runner stub event that shows the runner using the second token (by its fingerprint). */
function takesSecondToken(call: StubCall): boolean {
  return call.tool === "gitlab-runner" && call.args.includes(`token=${tokenFingerprint(SECOND_TOKEN)}`);
}

/** Defines the suite of a token change in the store; `current` gives the booted manager. */
export function describeTokenRotation(store: string, current: () => Manager, runnerVersion: string): void {
  const mode = rotationMode(runnerVersion);

  describe(`when the token in ${store} changes (gitlab-runner ${runnerVersion}: ${mode} rotation)`, () => {
    let manager: Manager;
    let runnerPidBefore: string;
    let callsBefore: number;
    const callsSince = (): StubCall[] => manager.stubs.calls().slice(callsBefore);

    beforeAll(async () => {
      manager = current();
      await waitForRunnerSettled(manager);
      runnerPidBefore = (await runnerServiceSettings(manager)).MainPID;
      callsBefore = manager.stubs.calls().length;
      storeToken(manager, SECOND_TOKEN);
      // The timer's first run comes one interval after the boot at the latest, plus its accuracy.
      await waitForConfigToken(manager, SECOND_TOKEN, ((await timerIntervalSeconds(manager, TOKEN_REFRESH_TIMER)) + 30) * 1000);
      // gitlab-runner takes the new token by reading config.toml again (within 3 s) or by starting anew.
      await manager.container.waitFor("gitlab-runner to take the new token", async () => callsSince().some(takesSecondToken), 10_000);
      await waitForRunnerSettled(manager);
    });

    it("the token-refresh timer fires and puts the new token in config.toml, still mode 0600", async () => {
      expect(await timerHasFired(manager, TOKEN_REFRESH_TIMER)).toBe(true);
      expect((await manager.container.exec(["stat", "-c", "%a", CONFIG_FILE])).stdout.trim()).toBe("600");
      expect(callsSince().filter(takesSecondToken)).not.toEqual([]);
    });

    it("keeps the workers: no taskscaler of the runner ever sees its token change", () => {
      expect(callsSince().filter((call) => call.event === "taskscaler-replaced")).toEqual([]);
    });

    if (mode === "live") {
      it("leaves gitlab-runner running: it reloads config.toml by itself", async () => {
        expect(await runnerServiceSettings(manager)).toMatchObject({ ActiveState: "active", MainPID: runnerPidBefore, NRestarts: "0" });
        expect(callsSince().filter((call) => call.tool === "gitlab-runner").map((call) => call.event)).toEqual(expect.arrayContaining(["config-reloaded", "taskscaler-kept"]));
      });
    } else {
      it("drains gitlab-runner first (SIGQUIT, its jobs finish), then starts it again with the new token", async () => {
        const runner = callsSince().filter((call) => call.tool === "gitlab-runner");
        const oldRunner = runner.filter((call) => String(call.pid) === runnerPidBefore).map((call) => [call.event, ...call.args].join(" "));
        expect(oldRunner).toEqual(expect.arrayContaining(["signal QUIT", "jobs-finished", "exit 0"]));
        expect(oldRunner.filter((event) => event.startsWith("forceful-shutdown") || event.startsWith("config-reloaded"))).toEqual([]);
        const settings = await runnerServiceSettings(manager);
        expect(settings.ActiveState).toBe("active");
        expect(settings.MainPID).not.toBe(runnerPidBefore);
        const newEntry = runner.find((call) => call.event === "runner-entry" && String(call.pid) === settings.MainPID);
        expect(newEntry?.args).toContain(`token=${tokenFingerprint(SECOND_TOKEN)}`);
        expect(callsSince().filter((call) => call.tool === "fleeting-plugin" && call.event === "signal")).toEqual([]);
        expect(await manager.container.activeState(RUNNER_UNIT)).toBe("active");
      });
    }
  });
}
