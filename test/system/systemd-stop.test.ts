/**
 * What real systemd (252, Debian bookworm) does when it stops a service like gitlab-runner, with
 * none of our scripts involved: the facts the manager's drain and its unit's drop-in rely on.
 * The service's main process traps SIGQUIT and needs a few seconds to finish its "jobs"; its child
 * is the fleeting plugin stand-in (a Go program's signal behaviour, see stubs/fleeting-plugin).
 */
import { CONTAINER_STUB_DIR, SystemContainer } from "./support/system-container";
import { StubState, type StubCall } from "./support/stub-state";

const MAIN = "/usr/local/sbin/slow-quit-main";
/** Main process: starts the plugin child, and on SIGQUIT takes $1 seconds (whole) before it exits 0. */
const MAIN_SCRIPT = `#!/bin/bash
source ${CONTAINER_STUB_DIR}/stub-lib.sh
unit=$2
SIGNAL=""
trap 'SIGNAL=QUIT' QUIT
# A Go parent does not start its children with SIGINT and SIGQUIT ignored; bash would.
env --default-signal=INT,QUIT ${CONTAINER_STUB_DIR}/fleeting-plugin "$unit" &
stub_log main start "$unit"
until [[ -n $SIGNAL ]]; do stub_pause 0.2; done
stub_log main signal QUIT "$unit"
# The drain's pause is a sleep child, which systemd can signal too: it repeats its round over the
# unit's cgroup until no process is added (cg_kill_items, src/basic/cgroup-util.c), and a sleep
# forked during it dies of SIGQUIT. A Go program's jobs are no such child: pause again until the
# drain's time is up (under load, the first sleep died and the unit stopped within a second).
stub_now_ms
drained_at=$((STUB_NOW_MS + $1 * 1000))
while ((STUB_NOW_MS < drained_at)); do
  stub_pause 0.2
  stub_now_ms
done
stub_log main exit "$unit"
exit 0
`;

function unit(seconds: number, killMode?: "mixed"): string {
  return ["[Service]", `ExecStart=${MAIN} ${seconds} %n`, "KillSignal=SIGQUIT", "TimeoutStopSec=60", ...(killMode ? [`KillMode=${killMode}`] : []), ""].join("\n");
}

describe("real systemd stopping a service that drains on SIGQUIT", () => {
  let container: SystemContainer;
  let stubs: StubState;

  beforeAll(async () => {
    container = await SystemContainer.boot("systemd");
    stubs = new StubState(container.stubState);
    await container.writeFile(MAIN, MAIN_SCRIPT, "0755");
  });

  afterAll(async () => {
    await container?.dispose();
  });

  async function startUnit(name: string, content: string): Promise<void> {
    await container.writeFile(`/etc/systemd/system/${name}`, content);
    await container.exec(["systemctl", "daemon-reload"]);
    await container.exec(["systemctl", "start", name]);
    await container.waitFor(`${name} to start its plugin child`, async () => pluginOf(name), 10_000);
  }

  function pluginOf(name: string): StubCall | undefined {
    return stubs.callsOf("fleeting-plugin", "start").find((call) => call.args[0] === name);
  }

  function eventsOf(tool: string, name: string): StubCall[] {
    return stubs.callsOf(tool).filter((call) => call.args.includes(name) || call.pid === pluginOf(name)?.pid);
  }

  async function waitInactive(name: string): Promise<void> {
    await container.waitFor(`${name} to be inactive`, async () => (await container.activeState(name)) === "inactive", 30_000);
  }

  async function alive(pid: number): Promise<boolean> {
    return (await container.exec(["kill", "-0", String(pid)], { check: false })).code === 0;
  }

  it("reports a stopping unit as deactivating, and is-active fails for it while its jobs still run", async () => {
    await startUnit("slow-stop.service", unit(6));
    const stopAt = Date.now();
    await container.exec(["systemctl", "stop", "--no-block", "slow-stop.service"]);
    await new Promise((resolve) => setTimeout(resolve, 1000));

    const isActive = await container.exec(["systemctl", "is-active", "slow-stop.service"], { check: false });
    const properties = await container.unitProperties("slow-stop.service", ["ActiveState", "SubState"]);

    // systemctl(1): is-active exits non-zero unless the unit is active; 3 is "program is not running" (LSB).
    expect(isActive).toMatchObject({ code: 3, stdout: "deactivating\n" });
    // SIGQUIT is KillSignal=; systemd names the sub-state after the default, SIGTERM.
    expect(properties).toEqual({ ActiveState: "deactivating", SubState: "stop-sigterm" });
    expect(eventsOf("main", "slow-stop.service").map((call) => call.event)).toEqual(["start", "signal"]);

    await waitInactive("slow-stop.service");
    const exit = eventsOf("main", "slow-stop.service").find((call) => call.event === "exit");
    expect(exit).toBeDefined();
    expect(exit!.at - stopAt).toBeGreaterThanOrEqual(5500);
  });

  it("sends KillSignal=SIGQUIT to the plugin child too under the default KillMode=control-group, and the plugin dies of it", async () => {
    await startUnit("control-group-stop.service", unit(1));
    await container.exec(["systemctl", "stop", "control-group-stop.service"]);

    const plugin = eventsOf("fleeting-plugin", "control-group-stop.service").map((call) => [call.event, ...call.args].join(" "));
    expect(plugin).toEqual([expect.stringMatching(/^start control-group-stop.service/), "signal QUIT", "exit 2"]);
  });

  it("sends SIGQUIT to the main process only under KillMode=mixed; the plugin lives until the main process exits, then gets SIGKILL", async () => {
    await startUnit("mixed-stop.service", unit(3, "mixed"));
    const pluginPid = pluginOf("mixed-stop.service")!.pid;
    await container.exec(["systemctl", "stop", "--no-block", "mixed-stop.service"]);
    await container.waitFor("the main process to get SIGQUIT", async () => eventsOf("main", "mixed-stop.service").some((call) => call.event === "signal"), 5_000);

    expect(await alive(pluginPid)).toBe(true);
    await waitInactive("mixed-stop.service");

    // systemd.kill(5): with mixed, the remaining processes get SIGKILL once the main process has
    // exited. SIGKILL cannot be caught, so the plugin records neither a signal nor an exit.
    expect(await alive(pluginPid)).toBe(false);
    expect(eventsOf("fleeting-plugin", "mixed-stop.service").map((call) => call.event)).toEqual(["start"]);
    expect(eventsOf("main", "mixed-stop.service").map((call) => call.event)).toEqual(["start", "signal", "exit"]);
  });
});
