"use strict";
/**
 * The directory of a package cdktf requires, as cdktf resolves it (its own node_modules, else the top
 * level's), for the stand-ins jest.config.js maps the package's name to: they require the real package
 * by this path, since through jest the name maps back to the stand-in.
 */
const { existsSync } = require("node:fs");
const { dirname, join } = require("node:path");

module.exports = function cdktfDependency(name) {
  const dir = [join(dirname(require.resolve("cdktf/package.json")), "node_modules", name), join(__dirname, "..", "..", "node_modules", name)].find((candidate) =>
    existsSync(join(candidate, "package.json")),
  );
  if (!dir) throw new Error(`${name}, a dependency of cdktf, is not installed: run \`npm ci\``);
  return dir;
};
