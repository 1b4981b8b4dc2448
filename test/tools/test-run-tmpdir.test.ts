/**
 * Every test file's scratch space is inside one directory per jest run (test/global-setup.js), which
 * test/global-teardown.js removes: cdktf's Testing.app() alone makes a directory per app and never
 * removes it, and thousands were left in the machine's /tmp after each run.
 */
import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import { dirname } from "node:path";

const runDir = process.env.RUNNER_FLEET_TEST_RUN_DIR;

test("os.tmpdir(), and the processes a test starts, use the run's directory", () => {
  expect(runDir).toMatch(/runner-fleet-test-/);
  expect(tmpdir()).toBe(runDir);
  const child = spawnSync("bash", ["-c", 'mktemp -d && echo "$TMPDIR"'], { encoding: "utf8" });
  const [made, childTmp] = child.stdout.trim().split("\n");
  expect(dirname(made)).toBe(runDir);
  expect(childTmp).toBe(runDir);
});

test("review's synth cache is inside it, so it goes with the run", () => {
  expect(dirname(process.env.RUNNER_FLEET_SYNTH_CACHE ?? "")).toBe(runDir);
});

test("the processes a test starts do not load the machine's NODE_EXTRA_CA_CERTS (Node 20 reads it at every start)", () => {
  expect(process.env.NODE_EXTRA_CA_CERTS).toBeUndefined();
  const child = spawnSync("bash", ["-c", 'echo "${NODE_EXTRA_CA_CERTS-unset}"'], { encoding: "utf8" });
  expect(child.stdout.trim()).toBe("unset");
});

describe("the run's directory in memory (test/support/memory-tmpdir.js)", () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { mountedNoexec } = require("../support/memory-tmpdir") as { mountedNoexec: (mountPoint: string, mounts: string) => boolean };
  const mounts = (shmOptions: string) => `/dev/sda1 / ext4 rw,relatime 0 0\ntmpfs /dev/shm tmpfs ${shmOptions} 0 0\n`;

  test("is not used where /dev/shm is mounted noexec (Docker's default), since tests run programs they write there", () => {
    expect(mountedNoexec("/dev/shm", mounts("rw,nosuid,nodev,noexec,relatime,size=65536k"))).toBe(true);
    expect(mountedNoexec("/dev/shm", mounts("rw,relatime,size=24684084k"))).toBe(false);
  });

  test("reads the mount in effect: the last one at that point", () => {
    expect(mountedNoexec("/dev/shm", `${mounts("rw,noexec")}tmpfs /dev/shm tmpfs rw,relatime 0 0\n`)).toBe(false);
    expect(mountedNoexec("/dev/shm", "/dev/sda1 / ext4 rw 0 0\n")).toBe(false);
  });
});

test("what commands keep between runs (XDG_CACHE_HOME) starts empty in each run and stays out of the user's ~/.cache", () => {
  expect(process.env.XDG_CACHE_HOME).toBe(`${runDir}/cache`);
});
