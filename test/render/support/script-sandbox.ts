/**
 * Runs a rendered startup script for real (bash), against a scratch root
 * (RUNNER_FLEET_ROOT) with stand-ins for every command that would touch the
 * machine or the network. PATH holds only the stubs and a few harmless
 * coreutils, so a real curl, apt-get or systemctl can never run.
 *
 * The stubs keep a little state (installed packages, users) so a second run sees
 * what the first one installed, like a rebooted VM.
 */
import { spawnSync } from "node:child_process";
import {
  accessSync,
  chmodSync,
  constants,
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, isAbsolute, join } from "node:path";

/** Harmless real tools the scripts may use (everything else is a stub or missing). */
import { liveConfigContent } from "../../../lib/render/live-config";
import { renderConfigToml, renderManagerStartupScript } from "../../../lib/render/manager-files";
import type { RunnerModel, Shard } from "../../../lib/model/schema";

const REAL_TOOLS = ["flock", "date", "dirname", "install", "touch", "mktemp", "chmod", "mv", "rm", "cat", "awk", "env", "base64", "grep", "ln", "mkdir", "basename", "sha256sum", "sed", "cp", "stat"];
/** Commands stood in for; more appear as the stubs "install" them (docker, aws, the CloudWatch agent ctl). */
const STUBS = ["logger", "sleep", "dpkg-query", "dpkg", "apt-get", "apt-mark", "systemctl", "curl", "gitlab-runner", "snap", "id", "useradd", "usermod", "ssh-keygen", "gpg", "gpgv", "iptables"];

/** The stand-in for every stubbed command (one file, many names) but logger, which has its own (plain sh). */
const STUB_SCRIPT_FILE = join(__dirname, "stub-command.sh");
const LOGGER_STUB_FILE = join(__dirname, "stub-logger.sh");
/** The file every stub name but logger links to, in the stub directory (its name is no command's). */
const COMMAND_STUB = ".command-stub";

export interface StubCall {
  readonly name: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
}

export interface ScriptRun {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** Every stub call of this run, in order. */
  readonly calls: readonly StubCall[];
  /** The raw call log (names, arguments and env of every stub call) of this run. */
  readonly callLog: string;
}

export class ScriptSandbox {
  readonly dir = mkdtempSync(join(tmpdir(), "runner-fleet-script-"));
  readonly root = join(this.dir, "root");
  readonly stubDir = join(this.dir, "stubs");
  readonly toolDir = join(this.dir, "tools");
  readonly stateDir = join(this.dir, "state");
  private readonly logFile = join(this.dir, "calls.log");
  private readonly bash = resolveTool("bash");
  /** Payloads whose files are in this sandbox's root. */
  private readonly installed = new Set<string>();

  constructor() {
    for (const dir of [this.root, this.stubDir, this.toolDir, this.stateDir, join(this.dir, "tmp")]) mkdirSync(dir, { recursive: true });
    const stub = join(this.stubDir, COMMAND_STUB);
    writeFileSync(stub, `#!${this.bash}\nset -uo pipefail\n${readFileSync(STUB_SCRIPT_FILE, "utf8")}`, { mode: 0o755 });
    writeFileSync(join(this.stubDir, "logger"), `#!/bin/sh\n${readFileSync(LOGGER_STUB_FILE, "utf8")}`, { mode: 0o755 });
    for (const name of STUBS.filter((stubName) => stubName !== "logger")) symlinkSync(stub, join(this.stubDir, name));
    for (const tool of REAL_TOOLS) symlinkSync(resolveTool(tool), join(this.toolDir, tool));
    // The worker merges daemon.json with python3, which its images carry (cloud-init is Python): the
    // interpreter itself, not a version manager's shim, which would need the PATH the sandbox takes away.
    symlinkSync(pythonInterpreter(), join(this.toolDir, "python3"));
    symlinkSync(this.bash, join(this.toolDir, "bash"));
    // The image's release, which the boot reads for the apt repositories' distribution and codename.
    this.writeRootFile("etc/os-release", 'NAME="Ubuntu"\nVERSION_ID="24.04"\nID=ubuntu\nVERSION_CODENAME=noble\n');
  }

  /** Adds a stub for a command that is normally absent (for example `docker` on an image that has it). */
  addStub(name: string): void {
    symlinkSync(join(this.stubDir, COMMAND_STUB), join(this.stubDir, name));
  }

  /** Removes a stub, as on an image that lacks the command (for example `apt-get` on Amazon Linux). */
  removeStub(name: string): void {
    rmSync(join(this.stubDir, name));
  }

  /** Writes a file into the scratch root before the run (for example a unit file the image ships). */
  writeRootFile(relativePath: string, content: string): void {
    const path = join(this.root, relativePath);
    mkdirSync(join(path, ".."), { recursive: true });
    writeFileSync(path, content);
  }

  /**
   * Makes this (unused) sandbox the VM `booted` is after its runs: its root, the stubs' state and the
   * commands its runs installed (stubs such as `aws`), with links into `booted` pointed at this sandbox.
   * For tests that go on from a boot another test booted the same way (shared-boots.ts).
   */
  copyFrom(booted: ScriptSandbox): void {
    const relink = (target: string) => (target.startsWith(`${booted.dir}/`) ? join(this.dir, target.slice(booted.dir.length + 1)) : target);
    copyTree(booted.root, this.root, relink);
    copyTree(booted.stateDir, this.stateDir, relink);
    for (const name of readdirSync(booted.stubDir)) {
      if (!existsSync(join(this.stubDir, name))) this.addStub(name);
    }
    for (const payload of booted.installed) this.installed.add(payload);
  }

  /** Marks a package as installed before the run, as on an image that ships it. */
  preinstall(packageName: string, version: string): void {
    writeFileSync(join(this.stateDir, "installed"), `${packageName} ${version}\n`, { flag: "a" });
  }

  /** Runs `script` as root would at boot; `args` are its command line (the manager script's timers pass a command). */
  run(script: string, env: Record<string, string> = {}, args: readonly string[] = []): ScriptRun {
    // A boot reads the config.toml the stack stored for this payload's manager (managerPayload).
    const stored = STORED_CONFIGS.get(script);
    if (stored !== undefined) writeFileSync(join(this.stateDir, "live-config"), stored);
    const scriptFile = join(this.dir, "startup.sh");
    writeFileSync(scriptFile, script, { mode: 0o700 });
    this.installed.add(script);
    return this.spawn(scriptFile, env, args);
  }

  /**
   * Runs the entry script a startup payload installs, as a timer's unit does (`ExecStart=<entry> <command>`):
   * on a VM the timers run the installed script, never the payload again. The payload's files are put in
   * place first unless a run of it in this sandbox already wrote them (copied from one run of the payload
   * per test file: see installedRoot).
   */
  runInstalled(payload: string, env: Record<string, string> = {}, args: readonly string[] = []): ScriptRun {
    if (!this.installed.has(payload)) {
      cpSync(installedRoot(payload), this.root, { recursive: true });
      this.installed.add(payload);
    }
    // What the store holds, unless the test changed it (setStoredConfig).
    const stored = STORED_CONFIGS.get(payload);
    if (stored !== undefined && !existsSync(join(this.stateDir, "live-config"))) writeFileSync(join(this.stateDir, "live-config"), stored);
    return this.spawn(join(this.root, payloadEntry(payload)), env, args);
  }

  private spawn(file: string, env: Record<string, string>, args: readonly string[]): ScriptRun {
    writeFileSync(this.logFile, "");
    const result = spawnSync(this.bash, [file, ...args], {
      encoding: "utf8",
      timeout: 20_000,
      env: {
        PATH: `${this.stubDir}:${this.toolDir}`,
        HOME: this.dir,
        TMPDIR: join(this.dir, "tmp"),
        RUNNER_FLEET_ROOT: this.root,
        STUB_DIR: this.stubDir,
        STUB_STATE: this.stateDir,
        STUB_LOG: this.logFile,
        ...env,
      },
    });
    const callLog = readFileSync(this.logFile, "utf8");
    return { status: result.status, stdout: result.stdout, stderr: result.stderr, calls: parseCalls(callLog), callLog };
  }

  /** What the config store answers from now on (the stack stored a new config.toml). */
  setStoredConfig(content: string): void {
    writeFileSync(join(this.stateDir, "live-config"), content);
  }

  file(relativePath: string): string {
    return readFileSync(join(this.root, relativePath), "utf8");
  }

  exists(relativePath: string): boolean {
    return existsSync(join(this.root, relativePath));
  }

  state(name: string): string {
    const path = join(this.stateDir, name);
    return existsSync(path) ? readFileSync(path, "utf8") : "";
  }

  dispose(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Per manager payload, the content the stack stores for its config.toml (lib/render/live-config.ts). */
const STORED_CONFIGS = new Map<string, string>();

/**
 * The startup payload of manager `slot`, as renderManagerStartupScript renders it; a sandbox that runs it
 * answers the manager's config store (Secret Manager or SSM, stub-command.sh) with the content the stack
 * stores for that manager.
 */
export function managerPayload(model: RunnerModel, shard: Shard, slot: number): string {
  const payload = renderManagerStartupScript(model, shard, slot);
  STORED_CONFIGS.set(payload, liveConfigContent(renderConfigToml(model, shard, slot)));
  return payload;
}

/** Copies a directory tree with its modes; `relink` gives each symbolic link's new target. */
function copyTree(from: string, to: string, relink: (target: string) => string): void {
  mkdirSync(to, { recursive: true });
  chmodSync(to, statSync(from).mode & 0o7777);
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const source = join(from, entry.name);
    const target = join(to, entry.name);
    if (entry.isSymbolicLink()) symlinkSync(relink(readlinkSync(source)), target);
    else if (entry.isDirectory()) copyTree(source, target, relink);
    // copyFile gives the copy the source's mode.
    else copyFileSync(source, target);
  }
}

/** The entry the payload runs once its files are written (its last line, `exec "${ROOT}"'<entry>' ...`). */
function payloadEntry(payload: string): string {
  const entry = /^exec "\$\{ROOT\}"'([^']+)' /m.exec(payload)?.[1];
  if (!entry) throw new Error("the payload runs no entry script");
  return entry;
}

/**
 * The files a payload writes, from one real run of it per test file (a root kept until the file's tests
 * end). It runs with a command the entry refuses before it touches anything (manager-lifecycle-run's "refuses
 * an unknown command" proves that), so the root holds the payload's files and nothing a boot would add.
 */
const installedRoots = new Map<string, ScriptSandbox>();
function installedRoot(payload: string): string {
  let seed = installedRoots.get(payload);
  if (!seed) {
    seed = new ScriptSandbox();
    const run = seed.run(payload, {}, ["install-only"]);
    if (run.status !== 2 || !run.stderr.includes("unknown command: install-only")) {
      throw new Error(`the payload did not just write its files (exit ${run.status}):\n${run.stderr}`);
    }
    installedRoots.set(payload, seed);
  }
  return seed.root;
}
afterAll(() => {
  for (const seed of installedRoots.values()) seed.dispose();
  installedRoots.clear();
});

function parseCalls(log: string): StubCall[] {
  return log
    .split("\n")
    .filter((line) => line.length > 0)
    .map((line) => {
      const fields = line.split("\x1f");
      const env = Object.fromEntries(
        fields.filter((field) => field.startsWith("ENV:")).map((field) => field.slice(4).split(/=(.*)/s, 2) as [string, string]),
      );
      const [name, ...args] = fields.filter((field) => !field.startsWith("ENV:"));
      return { name, args, env };
    });
}

/**
 * The first executable file named `name` on this process's PATH, as `command -v` finds it; looked up once
 * per test file: every test builds a sandbox, and a shell spawned per tool per sandbox cost more than the runs.
 */
const resolvedTools = new Map<string, string>();
let python: string | undefined;
function pythonInterpreter(): string {
  if (python === undefined) {
    const answer = spawnSync(resolveTool("python3"), ["-c", "import sys; print(sys.executable)"], { encoding: "utf8" });
    if (answer.status !== 0 || !answer.stdout.trim()) throw new Error(`the tests need python3 on PATH: ${answer.stderr}`);
    python = answer.stdout.trim();
  }
  return python;
}

function resolveTool(name: string): string {
  let path = resolvedTools.get(name);
  if (path === undefined) {
    path = (process.env.PATH ?? "")
      .split(delimiter)
      .filter((dir) => isAbsolute(dir))
      .map((dir) => join(dir, name))
      .find(isExecutableFile);
    if (path === undefined) throw new Error(`the tests need ${name} on PATH`);
    resolvedTools.set(name, path);
  }
  return path;
}

function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** The script exited 0 and logged no failure. */
export function expectSucceeded(run: ScriptRun): void {
  if (run.status !== 0) throw new Error(`the script exited with ${run.status}:\n${run.stderr}`);
  expect(run.stderr).not.toContain("FAILED");
}
