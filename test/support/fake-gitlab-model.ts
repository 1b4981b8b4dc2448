/** Example models pointed at a running FakeGitLab, with the local secret store in a temp dir. */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RunnerModel } from "../../lib/model/schema";
import { STATE_DIR_ENV } from "../../lib/state/cell-lock";
import type { FakeGitLab } from "./fake-gitlab";
import { modelWith } from "./models";

export interface FakeModelSetup {
  readonly model: RunnerModel;
  /** The local store's directory (not yet created). */
  readonly secretsDir: string;
  /** The temp dir that holds it. */
  readonly root: string;
  /** Environment with the admin token in the model's token variable, and the onboard lock's state directory under `root`. */
  readonly env: NodeJS.ProcessEnv;
}

/** cell-1 (two shards) talking to the fake, tokens in a local store under a fresh temp dir. */
export function fakeModel(fake: FakeGitLab, change: (model: RunnerModel) => void = () => {}): FakeModelSetup {
  const root = mkdtempSync(join(tmpdir(), "onboard-"));
  const secretsDir = join(root, "secrets");
  const model = modelWith("cell-1", (draft) => {
    draft.gitlab.url = fake.url;
    draft.secrets.store = "local";
    draft.secrets.local_dir = secretsDir;
    change(draft);
  });
  return { model, secretsDir, root, env: { [model.gitlab.token_env]: fake.adminToken, [STATE_DIR_ENV]: join(root, "state") } };
}
