/**
 * The models repository's package.json: runner-fleet pinned at an exact version (the pipeline installs
 * what package-lock.json locks for it), and beside it the SDK of the example's secret store at the
 * version runner-fleet was tested with (an optional peer of runner-fleet: lib/secrets/store-sdk.ts).
 * A package.json already there (say, from `npm install runner-fleet`) is merged into, never replaced:
 * its other fields are the team's, and so are pins it has already (--force sets them again).
 */
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { UserInputError } from "../../lib/process/errors";

export const PACKAGE_NAME = "runner-fleet";

type Manifest = Record<string, unknown> & { dependencies?: Record<string, string>; scripts?: Record<string, string> };

/**
 * Shortcuts for the commands a team runs most; `npm run` lists them. (Not `prepare`: npm runs that on
 * every install.) `npm run dry-run -- cell-1` names the cell after the script's --model.
 */
const SCRIPTS: Record<string, string> = {
  // npm run puts node_modules/.bin first on the PATH: these run the installed toolkit, never a fetched one.
  validate: "runner-fleet prepare",
  "dry-run": "runner-fleet provision --dry-run --model",
  status: "runner-fleet status",
};

export interface ManifestChange {
  readonly content: string;
  /** Whether the dependency on runner-fleet was added or changed (the lockfile must follow). */
  readonly dependencyChanged: boolean;
  readonly existed: boolean;
  readonly changed: boolean;
  /** A pin this run left alone (without --force), to say so. */
  readonly keptSpec?: string;
}

/**
 * `version` is runner-fleet's pin; `alongside` names the other packages to pin (the store's SDK) and
 * their versions. An existing pin of any of them stays without `force`.
 */
export function packageManifest(
  file: string,
  dir: string,
  version: string,
  force: boolean,
  existing: string | undefined,
  alongside: Readonly<Record<string, string>> = {},
  /** Pinned even without `force`: what a flag asked for by name (--toolkit-tarball's runner-fleet). */
  pinAlways: readonly string[] = [],
  /** The toolkit's install-script decisions (its package.json `allowScripts`) for packages this repository installs; the team's own entries win. */
  allowScripts: Readonly<Record<string, boolean>> = {},
): ManifestChange {
  const manifest = existing === undefined ? newManifest(dir) : parseManifest(file, existing);
  const dependencies = { ...(manifest.dependencies ?? {}) };
  const current = dependencies[PACKAGE_NAME];
  let dependencyChanged = false;
  for (const [name, wanted] of Object.entries({ [PACKAGE_NAME]: version, ...alongside })) {
    const pinned = dependencies[name];
    const pin = pinned === undefined || force || pinAlways.includes(name) ? wanted : pinned;
    dependencyChanged ||= pinned !== pin;
    dependencies[name] = pin;
  }
  const scripts = { ...SCRIPTS, ...(manifest.scripts ?? {}) };
  const allowed = { ...allowScripts, ...((manifest.allowScripts as Record<string, boolean> | undefined) ?? {}) };
  const content = `${JSON.stringify({ ...manifest, scripts, dependencies, ...(Object.keys(allowed).length > 0 ? { allowScripts: allowed } : {}) }, null, 2)}\n`;
  return {
    content,
    dependencyChanged,
    existed: existing !== undefined,
    changed: content !== existing,
    ...(current !== undefined && current !== version && !force && !pinAlways.includes(PACKAGE_NAME) ? { keptSpec: current } : {}),
  };
}

function newManifest(dir: string): Manifest {
  return {
    name: npmName(basename(dir)),
    private: true,
    description: "GitLab runner fleets of our cells: runner models provisioned by runner-fleet",
    engines: { node: ">=20.9" },
  };
}

/** npm's rules: lowercase, URL-safe, at most 214 characters. */
function npmName(directory: string): string {
  const name = directory.toLowerCase().replace(/[^a-z0-9._-]+/g, "-").replace(/^[._-]+/, "").slice(0, 214);
  return name === "" ? "runner-models" : name;
}

function parseManifest(file: string, text: string): Manifest {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new UserInputError(`${file}: expected a JSON object (package.json), received text that is not JSON (${(error as Error).message})`);
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new UserInputError(`${file}: expected a JSON object (package.json), received ${Array.isArray(parsed) ? "an array" : String(parsed)}`);
  }
  const manifest = parsed as Manifest;
  for (const key of ["dependencies", "scripts"] as const) {
    const value = manifest[key];
    if (value !== undefined && (value === null || typeof value !== "object" || Array.isArray(value))) {
      throw new UserInputError(`${file}: ${key}: expected an object, received ${JSON.stringify(value)}`);
    }
  }
  return manifest;
}

export function readIfPresent(file: string): string | undefined {
  try {
    return readFileSync(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return undefined;
    // Something there that is not a readable file (a directory of that name, no permission): in the way, named.
    throw new UserInputError(`${file}: expected a file init can read or write, received ${code === "EISDIR" ? "a directory" : `an error (${code ?? (error as Error).message})`}`);
  }
}
