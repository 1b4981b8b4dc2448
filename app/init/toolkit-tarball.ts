/**
 * `init --toolkit-tarball <file>`: runner-fleet from a tarball (`npm pack`'s, or a release's), for a
 * models repository without a registry that serves the package. The tarball is kept in the repository
 * (vendor/runner-fleet-<version>.tgz) and package.json pins that path, so a fresh clone installs it with
 * `npm ci` in CI and at a desk: a `file:` path outside the repository (`file:../runner-fleet-X.tgz`,
 * what `npm install ../runner-fleet-X.tgz` writes) does not exist in a pipeline's clone.
 *
 * An upgrade replaces the tarball (the old one is removed in the same change) and moves the pin: the
 * lockfile's node_modules/runner-fleet version changes, which is what the review reads as an upgrade
 * (lib/review/toolkit-upgrade.ts).
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { OperationalError, UserInputError } from "../../lib/process/errors";
import { TESTED_DEPENDENCIES_FILE, type LockEntry, type TestedDependencies } from "../../lib/files/tested-dependencies";
import { PACKAGE_NAME } from "./package-manifest";

export const VENDOR_DIR = "vendor";

export interface ToolkitTarball {
  /** The file given. */
  readonly source: string;
  readonly version: string;
  /** Its place in the models repository, with forward slashes: vendor/runner-fleet-<version>.tgz. */
  readonly vendored: string;
  /** What package.json pins: `file:vendor/runner-fleet-<version>.tgz`. */
  readonly spec: string;
  /** Its package.json. */
  readonly manifest: Readonly<Record<string, unknown>> & { readonly peerDependencies?: Readonly<Record<string, string>> };
  /** The lockfile entries it was tested with (its build wrote them). */
  readonly tested: TestedDependencies;
  /** Its lockfile entry, as npm writes one for a `file:` tarball. */
  readonly lockEntry: LockEntry;
}

/** One file out of the tarball, with tar (npm's tarballs are gzipped tar with every path under package/). */
function fileInTarball(tarball: string, path: string): string | undefined {
  const result = spawnSync("tar", ["-xzOf", tarball, `package/${path}`], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  if (result.error) throw new OperationalError(`cannot read ${tarball}: tar: ${result.error.message}`);
  return result.status === 0 ? result.stdout : undefined;
}

/** `given`: the path as the person wrote it, for the messages. */
export function readToolkitTarball(file: string, given = file): ToolkitTarball {
  const expected = "--toolkit-tarball: expected runner-fleet's package (a .tgz that `npm pack` wrote, such as runner-fleet-1.2.0.tgz)";
  if (!statSync(file, { throwIfNoEntry: false })?.isFile()) throw new UserInputError(`${expected}, received ${JSON.stringify(given)}, which is not a file`);
  const manifestText = fileInTarball(file, "package.json");
  let manifest: ToolkitTarball["manifest"] | undefined;
  try {
    manifest = manifestText === undefined ? undefined : (JSON.parse(manifestText) as ToolkitTarball["manifest"]);
  } catch {
    manifest = undefined;
  }
  if (manifest?.name !== PACKAGE_NAME || typeof manifest.version !== "string") {
    throw new UserInputError(`${expected}, received ${JSON.stringify(given)}, ${manifest ? `the package ${JSON.stringify(manifest.name)}` : "which holds no package/package.json"}`);
  }
  const testedText = fileInTarball(file, TESTED_DEPENDENCIES_FILE);
  if (testedText === undefined) throw new UserInputError(`${expected} of a version that ships ${TESTED_DEPENDENCIES_FILE}, received ${JSON.stringify(given)} (runner-fleet ${manifest.version}, which does not)`);
  const version = manifest.version;
  const vendored = `${VENDOR_DIR}/${PACKAGE_NAME}-${version}.tgz`;
  const spec = `file:${vendored}`;
  const pick = (keys: readonly string[]) => Object.fromEntries(keys.filter((key) => manifest[key] !== undefined).map((key) => [key, manifest[key]]));
  const lockEntry: LockEntry = {
    version,
    resolved: spec,
    integrity: `sha512-${createHash("sha512").update(readFileSync(file)).digest("base64")}`,
    ...pick(["license", "dependencies", "bin", "engines", "peerDependencies", "peerDependenciesMeta"]),
  };
  return { source: file, version, vendored, spec, manifest, tested: JSON.parse(testedText) as TestedDependencies, lockEntry };
}

/** Copies the tarball into `dir`'s vendor/, removing any other runner-fleet tarball there (the one it replaces). */
export function vendorTarball(dir: string, tarball: ToolkitTarball): { readonly removed: readonly string[] } {
  const vendor = join(dir, VENDOR_DIR);
  mkdirSync(vendor, { recursive: true });
  const name = tarball.vendored.slice(VENDOR_DIR.length + 1);
  const removed = readdirSync(vendor).filter((file) => file !== name && new RegExp(`^${PACKAGE_NAME}-.+\\.tgz$`).test(file));
  for (const file of removed) rmSync(join(vendor, file));
  // Already in place (`--toolkit-tarball vendor/runner-fleet-X.tgz`): copying a file onto itself would empty it.
  if (resolve(tarball.source) !== resolve(vendor, name)) copyFileSync(tarball.source, join(vendor, name));
  return { removed: removed.map((file) => `${VENDOR_DIR}/${file}`) };
}
