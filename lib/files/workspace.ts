/**
 * The workspace: the directory that holds the models directory in force (--models-dir, else
 * $RUNNER_MODELS_DIR, else ./models: modelsDir() below; lib/model/model-files.ts re-exports it).
 * Everything the commands write without being told where resolves against it: cdktf.out/, the
 * local Terraform state and the local secret store (.state/), the cell locks (.state/locks), and
 * the relative paths written in a model (state.path, secrets.local_dir).
 *
 * Why the models' parent and not the current directory: a run from elsewhere (`--models-dir
 * /srv/fleet/models`, a pipeline with RUNNER_MODELS_DIR=infra/models, `cdktf synth` from the toolkit's
 * checkout) must find the same state, tokens and locks as a run beside the models, or it plans a cell
 * from empty state, onboards runners twice and takes a lock nobody else sees. With the default
 * ./models the workspace is the current directory, so nothing moves for a run beside its models.
 *
 * Models kept in the directory a run starts from (`--models-dir .`, RUNNER_MODELS_DIR=.) make that
 * directory the workspace: its parent is usually outside the repository, where state and tokens
 * must never land.
 *
 * Paths a person types (--out, --model, --markdown...) and environment variables
 * ($RUNNER_FLEET_STATE_DIR) stay relative to the current directory, as shells expect.
 */
import { dirname, resolve } from "node:path";

export const DEFAULT_MODELS_DIR = "models";

/** The models directory: --models-dir, else $RUNNER_MODELS_DIR, else ./models. */
export function modelsDir(explicit?: string): string {
  return explicit ?? process.env.RUNNER_MODELS_DIR ?? DEFAULT_MODELS_DIR;
}

/** The absolute workspace directory for a run given `--models-dir` (or none). */
export function workspaceDir(modelsDirOption?: string): string {
  const models = resolve(modelsDir(modelsDirOption));
  return models === process.cwd() ? models : dirname(models);
}

/** The synthesis output directory when --out is not given: cdktf.out/ in the workspace. */
export function defaultSynthOutDir(workspace: string): string {
  return resolve(workspace, "cdktf.out");
}
