import { readFileSync } from "node:fs";
import { join } from "node:path";
import { PROJECT_ROOT } from "./project-root";

interface ToolkitManifest {
  readonly version: string;
  readonly peerDependencies?: Readonly<Record<string, string>>;
  readonly allowScripts?: Readonly<Record<string, boolean>>;
}

let manifest: ToolkitManifest | undefined;

/** The toolkit's own package.json (the installed package's, when installed), read once. */
function toolkitManifest(): ToolkitManifest {
  manifest ??= JSON.parse(readFileSync(join(PROJECT_ROOT, "package.json"), "utf8")) as ToolkitManifest;
  return manifest;
}

/** The toolkit's version: what `--version` prints and each stack records. */
export function toolkitVersion(): string {
  return toolkitManifest().version;
}

/** The version of an optional peer the toolkit was tested with (package.json peerDependencies pins it exactly). */
export function toolkitPeerVersion(name: string): string {
  const version = toolkitManifest().peerDependencies?.[name];
  if (version === undefined) throw new Error(`package.json has no peer dependency ${name}`);
  return version;
}

/** The toolkit's decisions on its dependencies' install scripts (npm 11's `allowScripts` in its package.json). */
export function toolkitAllowScripts(): Readonly<Record<string, boolean>> {
  return toolkitManifest().allowScripts ?? {};
}

/** The stack output that records the toolkit version (stacks/cell-stack.ts writes it, `status` reads it). */
export const TOOLKIT_VERSION_OUTPUT = "runner_fleet_version";
