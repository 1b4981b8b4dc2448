/**
 * `status` names, per cell, the toolkit version that last applied it: from a local state file, even
 * when GitLab is not asked (no token), and "?" with where to look for remote state.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { formatStatusReport, runStatus } from "../../app/commands/status";
import { modelWith } from "../support/models";

let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), "status-version-"))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

test("each cell's line says which runner-fleet version applied it, or why it cannot say", async () => {
  const local = modelWith("cell-1", (model) => {
    model.state = { backend: "local", path: "states/cell-1.tfstate" } as typeof model.state;
  });
  const remote = modelWith("cell-2", () => {});
  mkdirSync(join(dir, "states"));
  writeFileSync(join(dir, "states", "cell-1.tfstate"), JSON.stringify({ version: 4, outputs: { runner_fleet_version: { value: "0.2.0", type: "string" } }, resources: [] }));

  const report = await runStatus({
    runnerModels: [
      { file: "models/cell-1.yaml", model: local },
      { file: "models/cell-2.yaml", model: remote },
    ],
    env: {},
    workDir: dir,
    log: () => {},
  });

  expect(report.cells.map((cell) => cell.provisionedBy)).toEqual([
    { version: "0.2.0", source: "states/cell-1.tfstate" },
    { version: null, reason: "in the s3 state, which `status --read-state` reads with the engine and the backend's credentials" },
  ]);
  const text = formatStatusReport(report);
  expect(text).toContain("cell-1  https://cell-1.gitlab.example.com  (not checked)  applied by runner-fleet 0.2.0\n");
  expect(text).toContain("cell-2  https://cell-2.gitlab.example.com  (not checked)  applied by runner-fleet ? (in the s3 state, which `status --read-state` reads with the engine and the backend's credentials)\n");
});
