/**
 * The toolkit as a team gets it: `npm pack` of this checkout, installed into an empty directory.
 *
 * Installed offline from the npm cache `npm ci` filled, so the test needs no registry. `npm install
 * <tarball> --offline` alone cannot do that: npm resolves a tarball's dependencies through the
 * registry's metadata (packuments), which `npm ci` never caches (it fetches tarballs by the lockfile's
 * URLs), and it fails with ENOTCACHED. So the directory gets the lockfile a registry install would
 * write: runner-fleet from the tarball, and this checkout's locked versions of its dependencies
 * (package-lock.json without the dev-only entries; every direct dependency is pinned exactly).
 * `npm ci --offline` then installs exactly that. A runtime import of a devDependency, a file the
 * tarball leaves out or a `prepare` script that needs the sources fails here as it would for a team.
 *
 * cdktf, constructs and the provider bindings are optional peer dependencies: the CLI's bundles hold
 * what they use of them, so a models repository does not install them (they are most of a full
 * install's size); a CDKTF app of a team's own has them as its own dependencies. linkPeers() stands in
 * for that app's install by linking this checkout's copies, the exact versions the peer ranges name.
 * The secret stores' SDKs are optional peers too (lib/secrets/store-sdk.ts): not installed here, as in
 * a models repository before its `npm install` after init.
 */
import { spawnSync, type SpawnSyncReturns } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
// PROJECT_ROOT, not test/support/cli's REPO_ROOT: the bench runs this module compiled, from dist/.
import { PROJECT_ROOT as REPO_ROOT } from "../../lib/files/project-root";
import { STORE_SDKS } from "../../lib/secrets/store-sdk";
import { PRICING_SDK } from "../../lib/cost/refresh/aws-price-list";

export interface PackedToolkit {
  readonly tarball: string;
  readonly version: string;
  /** Bytes of the .tgz, and unpacked. */
  readonly size: number;
  readonly unpackedSize: number;
  readonly files: readonly string[];
}

/** npm as the test's own process runs it (the npm of the machine, or the one that started jest). */
export function npm(args: readonly string[], cwd: string, env: NodeJS.ProcessEnv = process.env): SpawnSyncReturns<string> {
  const result = spawnSync("npm", [...args], { cwd, env, encoding: "utf8", timeout: 240_000 });
  if (result.error) throw result.error;
  if (result.status !== 0) throw new Error(`npm ${args.join(" ")} in ${cwd} failed (${result.status}):\n${result.stdout}\n${result.stderr}`);
  return result;
}

/** `npm pack` of this checkout as built (`npm test` builds first; --ignore-scripts skips building it again). */
export function packToolkit(destination: string): PackedToolkit {
  const [report] = JSON.parse(npm(["pack", "--ignore-scripts", "--json", "--pack-destination", destination], REPO_ROOT).stdout) as Array<{
    filename: string;
    version: string;
    size: number;
    unpackedSize: number;
    files: Array<{ path: string }>;
  }>;
  return { tarball: join(destination, report.filename), version: report.version, size: report.size, unpackedSize: report.unpackedSize, files: report.files.map((file) => file.path) };
}

interface LockEntry {
  version?: string;
  resolved?: string;
  integrity?: string;
  dev?: boolean;
  [key: string]: unknown;
}

/** Installs the packed toolkit into `dir` (empty) as a team's models repository would have it. */
export function installOffline(packed: PackedToolkit, dir: string): void {
  const manifest = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as { name: string; dependencies: Record<string, string>; bin: Record<string, string>; engines: Record<string, string>; license: string };
  const lock = JSON.parse(readFileSync(join(REPO_ROOT, "package-lock.json"), "utf8")) as { packages: Record<string, LockEntry> };
  const spec = `file:${packed.tarball}`;
  const integrity = `sha512-${createHash("sha512").update(readFileSync(packed.tarball)).digest("base64")}`;
  const packages: Record<string, LockEntry> = {
    "": { name: "models", dependencies: { [manifest.name]: spec } },
    [`node_modules/${manifest.name}`]: {
      version: packed.version,
      resolved: spec,
      integrity,
      license: manifest.license,
      dependencies: manifest.dependencies,
      bin: manifest.bin,
      engines: manifest.engines,
    },
  };
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (path === "" || entry.dev || !path.startsWith("node_modules/")) continue;
    packages[path] = entry;
  }
  writeFileSync(join(dir, "package.json"), `${JSON.stringify({ name: "models", private: true, dependencies: { [manifest.name]: spec } }, null, 2)}\n`);
  writeFileSync(join(dir, "package-lock.json"), `${JSON.stringify({ name: "models", lockfileVersion: 3, requires: true, packages }, null, 2)}\n`);
  try {
    npm(["ci", "--offline", "--no-audit", "--no-fund"], dir);
  } catch (error) {
    if (!/ENOTCACHED/.test((error as Error).message)) throw error;
    throw new Error(`the npm cache lacks a dependency of the package, so it cannot be installed offline: run \`npm ci\` in this checkout (it fills the cache) and run the test again\n${(error as Error).message}`);
  }
}

/**
 * The optional peers (package.json peerDependencies) a CDKTF app of a team's own installs, linked into
 * `dir`'s node_modules from this checkout: all but the secret stores' SDKs, which only the commands that
 * keep runner tokens load (lib/secrets/store-sdk.ts).
 */
export function linkPeers(dir: string): string[] {
  const { peerDependencies } = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as { peerDependencies: Record<string, string> };
  // The cloud SDKs the commands load lazily (secret stores, the AWS price list): not needed to synthesize.
  const storeSdks = new Set<string>([...Object.values(STORE_SDKS), PRICING_SDK]);
  const names = Object.keys(peerDependencies).filter((name) => !storeSdks.has(name));
  for (const name of names) {
    const link = join(dir, "node_modules", name);
    mkdirSync(join(link, ".."), { recursive: true });
    symlinkSync(join(REPO_ROOT, "node_modules", name), link, "dir");
  }
  return names;
}
