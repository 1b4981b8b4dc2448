/**
 * In a CI job, local state lives in the job's directory and is lost with the job: the next
 * pipeline would plan to create the whole cell again. So provision refuses it under CI=true
 * (GitLab sets CI=true in every job) unless told otherwise.
 */
import type { LoadedModel } from "../model/load";
import { locateInModelFile } from "../model/load";
import { ModelValidationError } from "../model/issues";

export function refuseLocalStateInCi(loaded: readonly LoadedModel[], env: NodeJS.ProcessEnv): void {
  if (env.CI !== "true") return;
  for (const { model, file } of loaded) {
    if (model.state.backend !== "local") continue;
    const { line, column } = locateInModelFile(file, ["state", "backend"]);
    throw new ModelValidationError(file, [
      {
        severity: "error",
        file,
        path: ["state", "backend"],
        line,
        column,
        expected:
          "a remote state backend when CI=true (gcs, s3, or http for GitLab-managed Terraform state): local state is written inside this job and lost with it",
        received: model.state.path === undefined ? '"local" (the default)' : '"local"',
        hint: "or pass --allow-local-state to keep it inside the job anyway",
      },
    ]);
  }
}
