"use strict";
// Shared by bin/*: runs a compiled command, or explains how to build it.
const { existsSync } = require("node:fs");
const { join } = require("node:path");

module.exports = function loadCommand(file, factory) {
  const compiled = join(__dirname, "..", "dist", "app", "commands", `${file}.js`);
  if (!existsSync(compiled)) {
    process.stderr.write(`error: ${compiled} is missing; run \`npm ci\` (or \`npm run build\`) first\n`);
    process.exit(1);
  }
  const { main } = require(join(__dirname, "..", "dist", "app", "cli", "run-command.js"));
  main(require(compiled)[factory]());
};
