#!/usr/bin/env node
"use strict";
/**
 * Last step of `npm run build`: the lockfile entries of the dependencies this checkout is tested with
 * (runner-fleet's own, and each secret store's SDK's), into dist/data/tested-dependencies.json, which the
 * package ships. npm never packs package-lock.json; `init` seeds a models repository's lockfile with
 * these (lib/files/tested-dependencies.ts, app/init/lockfile.ts).
 */
const { mkdirSync, readFileSync, writeFileSync } = require("node:fs");
const { dirname, join } = require("node:path");
const { testedDependenciesOf, TESTED_DEPENDENCIES_FILE } = require("../dist/lib/files/tested-dependencies");
const { STORE_SDKS } = require("../dist/lib/secrets/store-sdk");

const ROOT = join(__dirname, "..");
const tested = testedDependenciesOf(readFileSync(join(ROOT, "package.json"), "utf8"), readFileSync(join(ROOT, "package-lock.json"), "utf8"), Object.values(STORE_SDKS));
const file = join(ROOT, TESTED_DEPENDENCIES_FILE);
mkdirSync(dirname(file), { recursive: true });
writeFileSync(file, `${JSON.stringify(tested)}\n`);
const count = (entries) => Object.keys(entries).length;
process.stdout.write(
  `wrote ${TESTED_DEPENDENCIES_FILE}: ${count(tested.runtime)} runtime packages; ${Object.entries(tested.peers).map(([name, entries]) => `${name} ${count(entries)}`).join(", ")}\n`,
);
