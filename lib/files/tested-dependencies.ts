/**
 * The dependencies this toolkit was tested with, as package-lock.json (lockfile v3) entries: the tree
 * under its own dependencies, and under each secret store's SDK (optional peers that a models
 * repository installs beside it, lib/secrets/store-sdk.ts). `init` seeds a models repository's lockfile
 * with them (app/init/lockfile.ts), so its install is the tested one and works offline from a cache
 * that holds these tarballs, instead of what the registry resolves that day.
 *
 * npm never packs package-lock.json, so the build writes them into the package
 * (dist/data/tested-dependencies.json, build/tested-dependencies.js); in this checkout they are read
 * from package-lock.json itself.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { PROJECT_ROOT } from "./project-root";

/** One package's entry in a v3 lockfile: version, resolved, integrity, its dependencies... */
export type LockEntry = Record<string, unknown> & {
  readonly dependencies?: Readonly<Record<string, string>>;
  readonly optionalDependencies?: Readonly<Record<string, string>>;
};

export interface TestedDependencies {
  /** runner-fleet's own dependencies and theirs, by lockfile path (`node_modules/yaml`). */
  readonly runtime: Readonly<Record<string, LockEntry>>;
  /** Per optional peer (each store's SDK): its entry and its dependencies', by lockfile path. */
  readonly peers: Readonly<Record<string, Readonly<Record<string, LockEntry>>>>;
}

/** Where the build writes them, relative to the package's root. */
export const TESTED_DEPENDENCIES_FILE = "dist/data/tested-dependencies.json";

/** Flags that describe this checkout's tree (dev-only, reached through a peer): in a models repository every one is a dependency. */
const CHECKOUT_FLAGS = new Set(["dev", "devOptional", "peer"]);

interface Lockfile {
  readonly packages: Readonly<Record<string, LockEntry>>;
}

/** The entries reachable from `names`, required by the package at `from` ("" is the root), with this checkout's flags removed. */
function closure(packages: Lockfile["packages"], names: readonly string[]): Record<string, LockEntry> {
  const found: Record<string, LockEntry> = {};
  const queue: Array<[string, string]> = names.map((name) => ["", name]);
  while (queue.length > 0) {
    const [from, name] = queue.shift() as [string, string];
    const path = resolvePath(packages, from, name);
    if (path === undefined || path in found) continue;
    const entry = packages[path];
    found[path] = Object.fromEntries(Object.entries(entry).filter(([key]) => !CHECKOUT_FLAGS.has(key)));
    for (const dependency of Object.keys({ ...entry.dependencies, ...entry.optionalDependencies })) queue.push([path, dependency]);
  }
  return found;
}

/** Node's resolution over lockfile paths: `<from>/node_modules/<name>`, then each ancestor's, then the root's. */
function resolvePath(packages: Lockfile["packages"], from: string, name: string): string | undefined {
  let dir = from;
  for (;;) {
    const candidate = dir === "" ? `node_modules/${name}` : `${dir}/node_modules/${name}`;
    if (candidate in packages) return candidate;
    if (dir === "") return undefined;
    const at = dir.lastIndexOf("node_modules/");
    dir = at <= 0 ? "" : dir.slice(0, at - 1);
  }
}

/** From this checkout's package.json and package-lock.json texts: what the build writes and a checkout reads. */
export function testedDependenciesOf(manifestText: string, lockText: string, peerNames: readonly string[]): TestedDependencies {
  const manifest = JSON.parse(manifestText) as { dependencies?: Record<string, string> };
  const lock = JSON.parse(lockText) as Lockfile;
  return {
    runtime: closure(lock.packages, Object.keys(manifest.dependencies ?? {})),
    peers: Object.fromEntries(peerNames.map((name) => [name, closure(lock.packages, [name])])),
  };
}

/** The tested dependencies of the toolkit at `root`: its package-lock.json in a checkout, else the file its build wrote. */
export function testedDependencies(root: string, peerNames: readonly string[]): TestedDependencies {
  const lockfile = join(root, "package-lock.json");
  if (existsSync(lockfile)) return testedDependenciesOf(readFileSync(join(root, "package.json"), "utf8"), readFileSync(lockfile, "utf8"), peerNames);
  return JSON.parse(readFileSync(join(root, TESTED_DEPENDENCIES_FILE), "utf8")) as TestedDependencies;
}

/** The running toolkit's. */
export function runningTestedDependencies(peerNames: readonly string[]): TestedDependencies {
  return testedDependencies(PROJECT_ROOT, peerNames);
}
