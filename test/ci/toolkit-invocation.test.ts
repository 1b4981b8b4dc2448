/**
 * What the commands print for a person to run next follows where the toolkit runs
 * (lib/ci/toolkit-invocation.ts): this checkout's ./bin/ and ci/, or, installed in a models repository,
 * npx --no-install and node_modules/runner-fleet/ci/ (never a bare npx, which would fetch by name).
 */
import { join } from "node:path";
import { INSTALLED_TOOLKIT, runningToolkit, toolkitCommand, toolkitScript } from "../../lib/ci/toolkit-invocation";
import { formatImportReport } from "../../app/commands/import";
import { REPO_ROOT } from "../support/cli";

test("in this checkout: ./bin/<command> and ci/", () => {
  const here = runningToolkit(REPO_ROOT);
  expect(toolkitCommand(here, "prepare")).toBe("./bin/prepare");
  expect(toolkitScript(here, "install-engine.sh")).toBe("ci/install-engine.sh");
  // The code under test runs from this checkout: import's "next:" names ./bin/.
  const report = formatImportReport({ file: "models/cell-9.yaml", cell: "cell-9", shards: [], unmapped: [], notes: [], adoption: [], warnings: [], refused: [] });
  expect(report.split("\n").at(-2)).toBe("next: review the model (its header lists what was not imported), then ./bin/prepare and ./bin/onboard --model cell-9 --dry-run");
});

test("installed under a models repository's node_modules: npx --no-install runner-fleet <command> and node_modules/runner-fleet/ci/", () => {
  const installed = runningToolkit(join("/srv", "runner-models", "node_modules", "runner-fleet"));
  expect(installed).toBe(INSTALLED_TOOLKIT);
  expect(toolkitCommand(installed, "onboard")).toBe("npx --no-install runner-fleet onboard");
  expect(toolkitScript(installed, "install-engine.sh")).toBe("node_modules/runner-fleet/ci/install-engine.sh");
  // A checkout whose path merely contains the word is not an installed package.
  expect(runningToolkit(join("/home", "node_modules_backup", "runner-fleet"))).toEqual({});
});
