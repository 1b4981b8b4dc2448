/**
 * `status` names the toolkit version that last applied each cell from the state's
 * `runner_fleet_version` output. Local state files here are written in Terraform's state format
 * (version 4: `outputs.<name>.value`, as test/real-engine/recorded-version.test.ts has the real
 * terraform write it); remote state is not read, and the answer says where to look.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { recordedToolkitVersion } from "../../lib/terraform/recorded-version";
import { modelWith } from "../support/models";

let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), "recorded-version-"))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const localModel = modelWith("cell-1", (model) => {
  model.state = { backend: "local" } as typeof model.state;
});

function writeState(outputs: Record<string, unknown>): void {
  mkdirSync(join(dir, ".state", "terraform"), { recursive: true });
  writeFileSync(join(dir, ".state", "terraform", "cell-1.tfstate"), JSON.stringify({ version: 4, terraform_version: "1.11.4", serial: 3, lineage: "x", outputs, resources: [] }));
}

test("a local state with the output: its version, and the file it came from (the model's default path, resolved against the work directory)", () => {
  writeState({ runner_fleet_version: { value: "0.3.1", type: "string" } });
  expect(recordedToolkitVersion(localModel, dir)).toEqual({ version: "0.3.1", source: ".state/terraform/cell-1.tfstate" });
});

test("a state applied before the version was recorded, a cell never applied from here, a file that is not a state", () => {
  writeState({ network_self_link: { value: "x", type: "string" } });
  expect(recordedToolkitVersion(localModel, dir)).toEqual({ version: null, reason: "applied by a version before runner_fleet_version was recorded (no such output in .state/terraform/cell-1.tfstate)" });

  rmSync(join(dir, ".state"), { recursive: true });
  expect(recordedToolkitVersion(localModel, dir)).toEqual({ version: null, reason: "never applied from here (no .state/terraform/cell-1.tfstate)" });

  mkdirSync(join(dir, ".state", "terraform"), { recursive: true });
  writeFileSync(join(dir, ".state", "terraform", "cell-1.tfstate"), "{ truncated");
  expect(recordedToolkitVersion(localModel, dir)).toEqual({ version: null, reason: ".state/terraform/cell-1.tfstate is not a Terraform state (not JSON)" });
});

test("remote state is not read offline: the answer says which output to read and where", () => {
  const gcs = modelWith("cell-1", () => {});
  expect(gcs.state.backend).toBe("gcs");
  expect(recordedToolkitVersion(gcs, dir)).toEqual({ version: null, reason: "in the gcs state, which `status --read-state` reads with the engine and the backend's credentials" });
});
