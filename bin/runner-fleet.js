#!/usr/bin/env node
"use strict";
/**
 * `runner-fleet <command> [options]`: the package's one executable (package.json "bin"). Each command
 * is the same bundle ./bin/<command> runs (dist/bundle/<command>.js, through bin/load-command.js), so
 * `runner-fleet provision ...` and `./bin/provision ...` are one program.
 *
 * Adding a command is one line in bin/commands.js: its bundle's name, the factory the bundle exports
 * and one line of help. (File names with a dot: build/bundle-commands.js takes neither for a command.)
 */
const { readFileSync } = require("node:fs");
const { join } = require("node:path");

const COMMANDS = require("./commands");

function version() {
  return JSON.parse(readFileSync(join(__dirname, "..", "package.json"), "utf8")).version;
}

function usage() {
  const width = Math.max(...Object.keys(COMMANDS).map((name) => name.length));
  return [
    "Usage: runner-fleet <command> [options]",
    "",
    "GitLab runner fleets per cell: YAML runner models in (./models, --models-dir or $RUNNER_MODELS_DIR),",
    "registered runners and Terraform stacks out.",
    "",
    "Commands:",
    ...Object.entries(COMMANDS).map(([name, { summary }]) => `  ${name.padEnd(width)}  ${summary}`),
    "",
    "Options:",
    "  -V, --version  print the version and exit",
    "  -h, --help     print this help and exit",
    "",
    "runner-fleet <command> --help describes a command's options.",
    "",
  ].join("\n");
}

const [name, ...rest] = process.argv.slice(2);
if (name === "-V" || name === "--version") {
  process.stdout.write(`${version()}\n`);
} else if (name === undefined || name === "-h" || name === "--help" || name === "help") {
  // `runner-fleet help provision` is `runner-fleet provision --help`, as in git and npm.
  if (name === "help" && Object.hasOwn(COMMANDS, rest[0] ?? "")) run(rest[0], ["--help"]);
  else process.stdout.write(usage());
} else if (Object.hasOwn(COMMANDS, name)) {
  run(name, rest);
} else {
  process.stderr.write(`error: unknown command '${name}' (expected one of: ${Object.keys(COMMANDS).join(", ")})\n\n${usage()}`);
  process.exitCode = 2;
}

function run(command, args) {
  // The command parses process.argv as ./bin/<command> would see it.
  process.argv = [process.argv[0], process.argv[1], ...args];
  require("./load-command")(command, COMMANDS[command].factory, { name: `runner-fleet ${command}` });
}
