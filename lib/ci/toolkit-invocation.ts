/**
 * How a pipeline job runs the toolkit. In a models repository the toolkit is the runner-fleet
 * package that `npm ci` installed at the version the lockfile pins: its subcommands run through
 * `npx --no-install runner-fleet <subcommand>` and its CI scripts are under
 * node_modules/runner-fleet/ci/. In this repository it is the checkout itself: ./bin/<subcommand>
 * and ci/. The CI/CD component (templates/runner-fleet.yml) takes both as inputs
 * (toolkit_command, toolkit_dir) and hands them to `review --child-pipeline`, so the child
 * pipelines run the toolkit the same way as the parent.
 *
 * What the commands print for a person to run next (import's "next:", review's help, the child
 * pipeline's header) follows where they run: runningToolkit() is ./bin/ in this checkout, npx
 * --no-install in a models repository (never a bare `npx runner-fleet`, which asks the public registry
 * for the name when the package is not installed here and runs whatever is published under it).
 */
import { sep } from "node:path";
import { PROJECT_ROOT } from "../files/project-root";

export interface ToolkitInvocation {
  /** Runs a subcommand when followed by its name, e.g. "npx --no-install runner-fleet". @default - ./bin/<subcommand> */
  readonly command?: string;
  /** Directory of the toolkit's files (its ci/ scripts), relative to the job's directory. @default - ci/ of the checkout */
  readonly dir?: string;
}

/** What a toolkit command may hold: words a shell passes as they are (no quotes, `$`, `;`, `|`, backticks). */
export const TOOLKIT_COMMAND_PATTERN = /^[A-Za-z0-9_./@= -]+$/;
/** A relative or absolute path of plain characters. */
export const TOOLKIT_DIR_PATTERN = /^[A-Za-z0-9_.@/-]+$/;

export type ToolkitSubcommand = "prepare" | "onboard" | "provision" | "review" | "status" | "simulate" | "import" | "init" | "gate";

/** How a models repository runs its installed toolkit: npx finds node_modules/.bin/runner-fleet, and never fetches. */
export const INSTALLED_TOOLKIT: Required<ToolkitInvocation> = { command: "npx --no-install runner-fleet", dir: "node_modules/runner-fleet" };

/**
 * How the toolkit running now is run by hand: installed (its root under a node_modules/), through npx
 * --no-install from the models repository's root; else this checkout's ./bin/ and ci/ (the defaults).
 */
export function runningToolkit(root: string = PROJECT_ROOT): ToolkitInvocation {
  return root.split(sep).includes("node_modules") ? INSTALLED_TOOLKIT : {};
}

/** The command line start of a toolkit subcommand, e.g. `./bin/provision` or `npx --no-install runner-fleet provision`. */
export function toolkitCommand(toolkit: ToolkitInvocation, subcommand: ToolkitSubcommand): string {
  return toolkit.command === undefined ? `./bin/${subcommand}` : `${toolkit.command.trim()} ${subcommand}`;
}

/** Path of one of the toolkit's ci/ scripts, e.g. `ci/install-engine.sh` or `node_modules/runner-fleet/ci/install-engine.sh`. */
export function toolkitScript(toolkit: ToolkitInvocation, script: string): string {
  return toolkit.dir === undefined ? `ci/${script}` : `${toolkit.dir.replace(/\/+$/, "")}/ci/${script}`;
}
