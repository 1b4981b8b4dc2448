/**
 * package-lock.json for a models repository, and the install.
 *
 * The lockfile is seeded with the entries the toolkit was tested with (lib/files/tested-dependencies.ts):
 * runner-fleet's dependencies, the SDK of the models' secret store and theirs, at this toolkit's locked
 * versions, instead of whatever the registry resolves that day. With runner-fleet from a vendored
 * tarball (./toolkit-tarball.ts) the seed is the whole lockfile, so the install needs no registry at all
 * when npm's cache holds those tarballs (an air-gapped machine, a pipeline's `.npm/` cache). From a
 * registry, npm adds runner-fleet's own entry and keeps the seeded ones, which satisfy it.
 *
 * Then npm installs (`npm install`, which also completes the lockfile): what init added to package.json
 * is in node_modules/ when init returns, whether or not node_modules/ was there before. `--no-install`
 * writes the lockfile only (`--package-lock-only`).
 */
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { LockEntry, TestedDependencies } from "../../lib/files/tested-dependencies";
import { OperationalError } from "../../lib/process/errors";
import { redactSecrets } from "../../lib/text/redact";
import { PACKAGE_NAME } from "./package-manifest";

/** The npm that runs us (npx and `npm run` set npm_execpath), else the one on PATH. */
function npmCommand(env: NodeJS.ProcessEnv): { command: string; args: string[] } {
  const execPath = env.npm_execpath;
  if (execPath && /npm-cli\.js$/.test(execPath)) return { command: process.execPath, args: [execPath] };
  return { command: process.platform === "win32" ? "npm.cmd" : "npm", args: [] };
}

export interface LockfileSeed {
  readonly tested: TestedDependencies;
  /** The store SDKs package.json pins at their tested versions: their entries are seeded. */
  readonly peers: readonly string[];
  /** runner-fleet's entry, when init knows it (a vendored tarball); else npm resolves it. */
  readonly toolkitEntry?: LockEntry;
  /** Whether package.json pins runner-fleet as the seed's toolkit does (else its dependencies are left to npm). */
  readonly toolkitPinned: boolean;
}

type Manifest = Record<string, unknown>;

/** Writes `dir`'s package-lock.json: the existing one's entries, with the seed's over them and the root from package.json. */
export function seedLockfile(dir: string, manifestText: string, existingText: string | undefined, seed: LockfileSeed): void {
  const manifest = JSON.parse(manifestText) as Manifest;
  let existing: Record<string, LockEntry> = {};
  try {
    existing = existingText === undefined ? {} : ((JSON.parse(existingText) as { packages?: Record<string, LockEntry> }).packages ?? {});
  } catch {
    // A lockfile that is not JSON is replaced; npm would refuse it anyway.
  }
  const root: LockEntry = Object.fromEntries(
    ["name", "version", "license", "dependencies", "devDependencies", "optionalDependencies", "peerDependencies", "engines"]
      .filter((key) => manifest[key] !== undefined)
      .map((key) => [key, manifest[key]]),
  );
  const packages: Record<string, LockEntry> = {
    ...existing,
    ...(seed.toolkitPinned ? seed.tested.runtime : {}),
    ...Object.assign({}, ...seed.peers.map((name) => seed.tested.peers[name] ?? {})),
    ...(seed.toolkitEntry ? { [`node_modules/${PACKAGE_NAME}`]: seed.toolkitEntry } : {}),
    "": root,
  };
  const ordered = Object.fromEntries(Object.entries(packages).sort(([a], [b]) => (a === "" ? -1 : b === "" ? 1 : a < b ? -1 : a > b ? 1 : 0)));
  const lock = { name: manifest.name, ...(manifest.version === undefined ? {} : { version: manifest.version }), lockfileVersion: 3, requires: true, packages: ordered };
  writeFileSync(join(dir, "package-lock.json"), `${JSON.stringify(lock, null, 2)}\n`);
}

/** `npm install` in `dir` (lockOnly: `--package-lock-only`, nothing installed); npm's failure named, with what to run. */
export function npmInstall(dir: string, lockOnly: boolean, env: NodeJS.ProcessEnv = process.env): void {
  const npm = npmCommand(env);
  const args = ["install", ...(lockOnly ? ["--package-lock-only"] : ["--prefer-offline"]), "--no-audit", "--no-fund"];
  const result = spawnSync(npm.command, [...npm.args, ...args], { cwd: dir, env, encoding: "utf8", timeout: 300_000 });
  if (result.error || result.status !== 0) {
    const said = (result.error?.message ?? result.stderr).trim().split("\n").slice(-6).join("\n");
    throw new OperationalError(
      `the other files are written, but npm could not ${lockOnly ? "write package-lock.json" : "install"} in ${dir} (is the registry reachable, or npm's cache filled, and is runner-fleet there?):\n${redactSecrets(said)}\n` +
        "Run `npm install` there once it can reach the registry; it installs and writes package-lock.json.",
    );
  }
}
