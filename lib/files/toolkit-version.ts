import { readFileSync } from "node:fs";
import { join } from "node:path";
import { PROJECT_ROOT } from "./project-root";

let version: string | undefined;

/** The toolkit's version, from its own package.json (the installed package's, when installed): what `--version` prints and each stack records. */
export function toolkitVersion(): string {
  version ??= (JSON.parse(readFileSync(join(PROJECT_ROOT, "package.json"), "utf8")) as { version: string }).version;
  return version;
}

/** The stack output that records the toolkit version (stacks/cell-stack.ts writes it, `status` reads it). */
export const TOOLKIT_VERSION_OUTPUT = "runner_fleet_version";
