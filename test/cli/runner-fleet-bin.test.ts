/**
 * bin/runner-fleet.js, the package's one executable: each command of bin/commands.js is the bundle
 * ./bin/<command> runs, every ./bin/<command> is reachable through it, and it answers --version,
 * --help, `help <command>` and an unknown command as a CLI should.
 */
import { spawnSync } from "node:child_process";
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { toolkitVersion } from "../../lib/files/toolkit-version";
import { REPO_ROOT } from "../support/cli";

const COMMANDS = require(join(REPO_ROOT, "bin", "commands.js")) as Record<string, { factory: string; summary: string }>;
const NAMES = Object.keys(COMMANDS);

function runnerFleet(args: readonly string[]) {
  const result = spawnSync(process.execPath, [join(REPO_ROOT, "bin", "runner-fleet.js"), ...args], { cwd: REPO_ROOT, encoding: "utf8", timeout: 60_000 });
  if (result.error) throw result.error;
  return result;
}

test("the table and ./bin agree: every command has its ./bin script with the same bundle and factory, every ./bin script is a command", () => {
  const scripts = readdirSync(join(REPO_ROOT, "bin")).filter((name) => !name.includes(".") && statSync(join(REPO_ROOT, "bin", name)).isFile());
  expect(scripts.sort()).toEqual([...NAMES].sort());
  for (const name of NAMES) {
    expect(readFileSync(join(REPO_ROOT, "bin", name), "utf8")).toContain(`require("./load-command")(${JSON.stringify(name)}, ${JSON.stringify(COMMANDS[name].factory)});`);
  }
});

test("--version, -V and --help; `help <command>` is `<command> --help`", () => {
  expect(runnerFleet(["--version"]).stdout).toBe(`${toolkitVersion()}\n`);
  expect(runnerFleet(["-V"]).stdout).toBe(`${toolkitVersion()}\n`);
  const help = runnerFleet(["--help"]);
  expect(help.status).toBe(0);
  expect(help.stdout.match(/^ {2}[a-z]+ {2,}/gm)?.map((line) => line.trim())).toEqual(NAMES);
  expect(runnerFleet([]).stdout).toBe(help.stdout);
  expect(runnerFleet(["help", "provision"]).stdout).toBe(runnerFleet(["provision", "--help"]).stdout);
});

test.each(NAMES)("runner-fleet %s runs its command's bundle, named as runner-fleet calls it", (name) => {
  const result = runnerFleet([name, "--help"]);
  expect(result.stderr).toBe("");
  expect(result.status).toBe(0);
  expect(result.stdout).toMatch(new RegExp(`^Usage: runner-fleet ${name} `));
});

test("an unknown command is refused with the commands there are (exit 2); the arguments after a command are its own", () => {
  const unknown = runnerFleet(["provison", "--model", "cell-1"]);
  expect(unknown.status).toBe(2);
  expect(unknown.stderr.split("\n")[0]).toBe(`error: unknown command 'provison' (expected one of: ${NAMES.join(", ")})`);
  expect(unknown.stdout).toBe("");
  const version = runnerFleet(["prepare", "--version"]);
  expect(version.stdout).toBe(`${toolkitVersion()}\n`);
  const badOption = runnerFleet(["prepare", "--no-such-option"]);
  expect(badOption.status).toBe(2);
  expect(badOption.stderr).toContain("unknown option '--no-such-option'");
});
