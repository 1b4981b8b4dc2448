/**
 * Model files of a small fleet on disk, talking to a running FakeGitLab, with their
 * tokens in a local store: what `status` and `onboard --prune` read, as a user's
 * models directory would hold them.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadModelFile } from "../../lib/model/load";
import type { RunnerModel } from "../../lib/model/schema";
import type { FakeGitLab } from "./fake-gitlab";
import { MODELS_DIR } from "./models";

export interface FleetSetup {
  /** The models directory. */
  readonly dir: string;
  /** The local secret store's directory (shared by the cells; file names carry the cell). */
  readonly secretsDir: string;
  /** Environment with the admin token in GITLAB_TOKEN. */
  readonly env: NodeJS.ProcessEnv;
  /** The loaded models by cell id. */
  readonly models: Record<string, RunnerModel>;
  readonly fileOf: (cell: string) => string;
}

/** Writes each cell as a copy of an example ("cell-10": a copy of cell-1 with that id), pointed at the fake. */
export function writeFleet(fake: FakeGitLab, cells: ReadonlyArray<{ readonly id: string; readonly from: "cell-1" | "cell-2"; readonly edit?: (text: string) => string }>): FleetSetup {
  const root = mkdtempSync(join(tmpdir(), "fleet-"));
  const dir = join(root, "models");
  const secretsDir = join(root, "secrets");
  mkdirSync(dir);
  const fileOf = (cell: string) => join(dir, `${cell}.yaml`);
  const models: Record<string, RunnerModel> = {};
  for (const cell of cells) {
    let text = readFileSync(join(MODELS_DIR, `${cell.from}.yaml`), "utf8")
      .replace(`id: ${cell.from}\n`, `id: ${cell.id}\n`)
      .replace(/^  url: .*$/m, `  url: ${fake.url}`)
      .replace(/^  store: .*$/m, `  store: local\n  local_dir: ${JSON.stringify(secretsDir)}`);
    if (cell.edit) text = cell.edit(text);
    writeFileSync(fileOf(cell.id), text);
    models[cell.id] = loadModelFile(fileOf(cell.id)).model;
  }
  return { dir, secretsDir, env: { ...process.env, GITLAB_TOKEN: fake.adminToken }, models, fileOf };
}
