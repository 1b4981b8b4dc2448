/** The docs' simulated week of the example cell is what simulate prints today, not what it printed once. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT, runInProcess } from "../support/cli";

test("docs/operations/simulate.md shows the example cell's simulated week as simulate prints it", async () => {
  const readme = readFileSync(join(REPO_ROOT, "docs", "operations", "simulate.md"), "utf8");
  const command = "$ ./bin/simulate --model cell-1 --synthetic office-week\n";
  const start = readme.indexOf(command);
  expect(start).toBeGreaterThan(0);
  const shown = readme.slice(start + command.length, readme.indexOf("```", start));
  const result = await runInProcess("simulate", ["--model", "cell-1", "--synthetic", "office-week"]);
  expect(result.status).toBe(0);
  expect(shown).toBe(result.stdout);
}, 60_000);
