/**
 * A throwaway Debian container whose PID 1 is real systemd (252), booted with systemd-nspawn from
 * the cached rootfs (tools/setup/system-rootfs.sh) and driven from outside with nsenter.
 *
 * - `--volatile=overlay`: the rootfs is mounted read-only under a tmpfs overlay, so the cache is
 *   never modified and every boot starts clean.
 * - `--register=no --keep-unit`: the host's PID 1 is not systemd, so there is no machined to
 *   register with and no scope unit to create.
 * - `--private-network`: only loopback inside, so nothing in the container can reach a real cloud
 *   endpoint; the stubs answer all of them.
 * - The stubs (./stubs) are bind-mounted read-only at /usr/local/lib/runner-fleet-stubs, their
 *   bin/ at /usr/local/bin (first on systemd's PATH), and a per-container host directory at
 *   /var/lib/stub: the stubs' call log and the answers the test sets, read and written from here.
 * Each container has its own machine name and directories, so suites boot them in parallel.
 * RUNNER_FLEET_SYSTEM_KEEP=<dir> keeps each container's stub state (call log included) there.
 */
import { spawn, execFile, type ChildProcess } from "node:child_process";
import { mkdtempSync, openSync, closeSync, readFileSync, rmSync, mkdirSync, chmodSync, cpSync, existsSync, readdirSync, rmdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { SYSTEM_ROOTFS, requireSystemTestHost } from "./system-prerequisites";

export const STUBS_DIR = join(__dirname, "stubs");
/** Where the stubs live inside the container. */
export const CONTAINER_STUB_DIR = "/usr/local/lib/runner-fleet-stubs";
/** The stubs' state directory inside the container (a host directory, bind-mounted). */
export const CONTAINER_STUB_STATE = "/var/lib/stub";
/** systemd's default PATH for services (systemd.exec(5)); commands run with it and nothing else. */
const SYSTEMD_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

export interface CommandResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export interface ExecOptions {
  /** Written to the command's stdin. */
  readonly input?: string;
  /** Fail when the command exits non-zero (default true). */
  readonly check?: boolean;
  readonly timeoutMs?: number;
}

const live = new Set<SystemContainer>();
let bootCount = 0;

// A worker that dies mid-suite must not leave containers behind: killing a container's PID 1
// ends its whole PID namespace, and systemd-nspawn with it.
process.on("exit", () => {
  for (const container of live) container.killNow();
});

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function run(command: string, args: readonly string[], options: ExecOptions = {}): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = execFile(command, args, { timeout: options.timeoutMs ?? 60_000, maxBuffer: 16 * 1024 * 1024, encoding: "utf8" }, (error, stdout, stderr) => {
      const code = error ? (typeof (error as NodeJS.ErrnoException).code === "number" ? Number((error as NodeJS.ErrnoException).code) : error.killed ? 124 : 1) : 0;
      const result = { code, stdout, stderr };
      if (code !== 0 && options.check !== false) {
        reject(new Error(`${[command, ...args].join(" ")} exited ${code}${error?.killed ? " (timed out)" : ""}\n${stderr.trim()}`));
      } else {
        resolve(result);
      }
    });
    // A command that never reads its stdin may exit before the write lands.
    child.stdin?.on("error", () => undefined);
    child.stdin?.end(options.input ?? "");
  });
}

const CGROUP_ROOT = "/sys/fs/cgroup";

/** A cgroup of the container's own on each hierarchy that systemd uses (unified, or hybrid's two). */
function ownCgroups(machine: string): string[] {
  const hierarchies = existsSync(join(CGROUP_ROOT, "cgroup.procs")) ? [CGROUP_ROOT] : ["systemd", "unified"].map((name) => join(CGROUP_ROOT, name)).filter((dir) => existsSync(join(dir, "cgroup.procs")));
  return hierarchies.map((dir) => join(dir, "runner-fleet-system-tests", machine));
}

/** Removes a cgroup and the ones below it, deepest first (cgroupfs removes only empty directories). */
function removeCgroupTree(dir: string): void {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const entry of entries) if (entry.isDirectory()) removeCgroupTree(join(dir, entry.name));
  try {
    rmdirSync(dir);
  } catch {
    // a process is still in it; the tree stays for the next run to see
  }
}

export class SystemContainer {
  private exited = false;

  private constructor(
    readonly machine: string,
    /** Host directory holding this container's logs and stub state. */
    readonly workDir: string,
    /** Host path of CONTAINER_STUB_STATE. */
    readonly stubState: string,
    private readonly nspawn: ChildProcess,
    /** The container's PID 1 (systemd) as the host sees it. */
    readonly pid1: number,
    /** The host cgroups the container lives in, one per hierarchy. */
    private readonly cgroups: readonly string[],
  ) {
    nspawn.once("exit", () => (this.exited = true));
  }

  /** Boots a container and waits until systemd reports the boot finished. */
  static async boot(label: string): Promise<SystemContainer> {
    requireSystemTestHost();
    bootCount += 1;
    const machine = `rf-${label}-${process.pid}-${bootCount}-${randomBytes(2).toString("hex")}`.slice(0, 60);
    const workDir = mkdtempSync(join(tmpdir(), "runner-fleet-system-"));
    const stubState = join(workDir, "stub-state");
    mkdirSync(stubState);
    chmodSync(stubState, 0o755);
    const log = openSync(join(workDir, "nspawn.log"), "a");
    const cgroups = ownCgroups(machine);
    // systemd-nspawn --keep-unit puts the container under its own cgroup ("payload" beside its
    // "supervisor"); started from the same cgroup, parallel containers would share one tree, and
    // each one's systemd would wait for the others' processes before it calls a unit stopped.
    const nspawn = spawn(
      "/bin/sh",
      [
        "-c",
        'for dir in $CGROUPS; do mkdir -p "$dir" && echo $$ >"$dir/cgroup.procs" || exit 1; done; exec "$@"',
        "sh",
        "systemd-nspawn",
        "--quiet",
        "--register=no",
        "--keep-unit",
        "--volatile=overlay",
        "--private-network",
        "--console=passive",
        `--directory=${SYSTEM_ROOTFS}`,
        `--machine=${machine}`,
        `--bind-ro=${STUBS_DIR}:${CONTAINER_STUB_DIR}`,
        `--bind-ro=${join(STUBS_DIR, "bin")}:/usr/local/bin`,
        `--bind=${stubState}:${CONTAINER_STUB_STATE}`,
        "--boot",
      ],
      { stdio: ["ignore", log, log], env: { ...process.env, CGROUPS: cgroups.join(" ") } },
    );
    closeSync(log);
    let container: SystemContainer | undefined;
    try {
      const pid1 = await SystemContainer.findPid1(nspawn, workDir);
      container = new SystemContainer(machine, workDir, stubState, nspawn, pid1, cgroups);
      live.add(container);
      await container.waitForBoot();
      return container;
    } catch (error) {
      if (container) await container.dispose();
      else {
        nspawn.kill("SIGKILL");
        rmSync(workDir, { recursive: true, force: true });
        for (const dir of cgroups) removeCgroupTree(dir);
      }
      throw error;
    }
  }

  /** systemd-nspawn's child, once it has become systemd. */
  private static async findPid1(nspawn: ChildProcess, workDir: string): Promise<number> {
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      if (nspawn.exitCode !== null) throw new Error(`systemd-nspawn exited ${nspawn.exitCode}: ${readFileSync(join(workDir, "nspawn.log"), "utf8").trim()}`);
      const children = await run("pgrep", ["-P", String(nspawn.pid)], { check: false });
      for (const pid of children.stdout.split("\n").filter(Boolean).map(Number)) {
        try {
          if (readFileSync(`/proc/${pid}/comm`, "utf8").trim() === "systemd") return pid;
        } catch {
          // gone between pgrep and the read
        }
      }
      await delay(100);
    }
    throw new Error(`systemd did not start in container ${nspawn.pid} within 30 s`);
  }

  private async waitForBoot(): Promise<void> {
    // Until systemd has set up its private socket, systemctl cannot connect at all.
    const result = await this.waitFor(
      "systemd in the container to answer",
      async () => {
        const answer = await this.exec(["systemctl", "is-system-running", "--wait"], { check: false, timeoutMs: 60_000 });
        return answer.stderr.includes("Failed to connect to bus") ? undefined : answer;
      },
      30_000,
      100,
    );
    const state = result.stdout.trim();
    // "degraded" means some unrelated unit of the minimal image failed; the tests check their own units.
    if (state !== "running" && state !== "degraded") {
      throw new Error(`container ${this.machine} did not boot: is-system-running says ${JSON.stringify(state)} ${result.stderr.trim()}`);
    }
  }

  /** Runs a command inside the container as root, with systemd's PATH and an otherwise empty environment. */
  exec(argv: readonly string[], options: ExecOptions = {}): Promise<CommandResult> {
    return run("nsenter", ["--target", String(this.pid1), "--all", "--", "/usr/bin/env", "-i", `PATH=${SYSTEMD_PATH}`, "LANG=C.UTF-8", ...argv], options);
  }

  /** Runs a bash script inside the container. */
  bash(script: string, options: ExecOptions = {}): Promise<CommandResult> {
    return this.exec(["/bin/bash", "-euo", "pipefail", "-c", script], options);
  }

  /** Writes a file inside the container (through the container's own mount namespace). */
  async writeFile(path: string, content: string, mode = "0644"): Promise<void> {
    await this.exec(["/bin/sh", "-c", 'mkdir -p "$(dirname "$1")" && cat >"$1" && chmod "$2" "$1"', "sh", path, mode], { input: content });
  }

  async readFile(path: string): Promise<string> {
    return (await this.exec(["cat", path])).stdout;
  }

  /** `systemctl show` of a unit: the named properties, as systemd reports them. */
  async unitProperties(unit: string, names: readonly string[]): Promise<Record<string, string>> {
    const result = await this.exec(["systemctl", "show", unit, `--property=${names.join(",")}`]);
    const properties: Record<string, string> = {};
    for (const line of result.stdout.split("\n")) {
      const at = line.indexOf("=");
      if (at > 0) properties[line.slice(0, at)] = line.slice(at + 1);
    }
    return properties;
  }

  async activeState(unit: string): Promise<string> {
    return (await this.unitProperties(unit, ["ActiveState"])).ActiveState;
  }

  /** Polls `probe` until it returns a value; fails naming `what` after timeoutMs. */
  async waitFor<T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs: number, intervalMs = 250): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
      if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
      await delay(intervalMs);
    }
  }

  /** The journal of one unit (or the whole boot), for failure messages. */
  async journal(unit?: string): Promise<string> {
    const result = await this.exec(["journalctl", "--no-pager", "-o", "short-monotonic", ...(unit ? ["-u", unit] : ["-b"])], { check: false });
    return result.stdout;
  }

  /** Stops the container (a clean poweroff, then SIGKILL to its PID 1) and removes its directories. */
  async dispose(): Promise<void> {
    if (!this.exited) {
      this.nspawn.kill("SIGTERM");
      const deadline = Date.now() + 10_000;
      while (!this.exited && Date.now() < deadline) await delay(100);
      if (!this.exited) {
        this.killNow();
        const killDeadline = Date.now() + 5_000;
        while (!this.exited && Date.now() < killDeadline) await delay(100);
      }
    }
    live.delete(this);
    const keep = process.env.RUNNER_FLEET_SYSTEM_KEEP;
    if (keep) cpSync(this.stubState, join(keep, this.machine), { recursive: true });
    rmSync(this.workDir, { recursive: true, force: true });
    for (const dir of this.cgroups) removeCgroupTree(dir);
    // systemd-nspawn leaves its mount propagation directory behind when the host has no systemd.
    rmSync(`/run/systemd/nspawn/propagate/${this.machine}`, { recursive: true, force: true });
  }

  /** SIGKILL to the container's PID 1: ends every process in it at once. */
  killNow(): void {
    try {
      process.kill(this.pid1, "SIGKILL");
    } catch {
      // already gone
    }
  }
}
