/**
 * How a pipeline job runs the toolkit. In a models repository the toolkit is the runner-fleet
 * package that `npm ci` installed at the version the lockfile pins: its subcommands run through
 * `npx --no-install runner-fleet <subcommand>` and its CI scripts are under
 * node_modules/runner-fleet/ci/. In this repository it is the checkout itself: ./bin/<subcommand>
 * and ci/. The CI/CD component (templates/runner-fleet.yml) takes both as inputs
 * (toolkit_command, toolkit_dir) and hands them to `review --child-pipeline`, so the child
 * pipelines run the toolkit the same way as the parent.
 */

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

export type ToolkitSubcommand = "prepare" | "onboard" | "provision" | "review" | "status";

/** The command line start of a toolkit subcommand, e.g. `./bin/provision` or `npx --no-install runner-fleet provision`. */
export function toolkitCommand(toolkit: ToolkitInvocation, subcommand: ToolkitSubcommand): string {
  return toolkit.command === undefined ? `./bin/${subcommand}` : `${toolkit.command.trim()} ${subcommand}`;
}

/**
 * The toolkit is the job's own checkout (this repository's pipeline: toolkit_dir "."), whose bin/ runs
 * dist/: its jobs build after `npm ci` (package.json has no `prepare` that would do it on install).
 */
export function toolkitIsCheckout(toolkit: ToolkitInvocation): boolean {
  return toolkit.dir === undefined || toolkit.dir.replace(/\/+$/, "") === ".";
}

/** Path of one of the toolkit's ci/ scripts, e.g. `ci/install-engine.sh` or `node_modules/runner-fleet/ci/install-engine.sh`. */
export function toolkitScript(toolkit: ToolkitInvocation, script: string): string {
  return toolkit.dir === undefined ? `ci/${script}` : `${toolkit.dir.replace(/\/+$/, "")}/ci/${script}`;
}
