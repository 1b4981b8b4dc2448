/**
 * The Terraform state backend of a cell's stack, from `state:` in the model.
 * Credentials never go into the synthesized JSON: the http backend reads
 * TF_HTTP_USERNAME / TF_HTTP_PASSWORD from the environment at plan/apply time.
 */
import { resolve } from "node:path";
import { GcsBackend, HttpBackend, LocalBackend, S3Backend, type TerraformStack } from "cdktf";
import { stateWithDefaults } from "../lib/model/derived-defaults";
import type { RunnerModel } from "../lib/model/schema";
import { workspaceDir } from "../lib/files/workspace";

export { DEFAULT_LOCAL_STATE_DIR } from "../lib/model/derived-defaults";

export function configureBackend(stack: TerraformStack, model: RunnerModel, options: { /** @default the workspace (lib/files/workspace.ts) */ workDir?: string } = {}): void {
  // Derived defaults (local path, gcs prefix, http state name and API URL) come from one place,
  // which `prepare --json` shows too.
  const state = stateWithDefaults(model);
  const cell = model.cell.id;
  switch (state.backend) {
    case "local":
      new LocalBackend(stack, { path: resolve(options.workDir ?? workspaceDir(), state.path) });
      return;
    case "gcs":
      new GcsBackend(stack, { bucket: state.bucket, prefix: state.prefix });
      return;
    case "s3": {
      new S3Backend(stack, {
        bucket: state.bucket,
        key: `${state.key_prefix}/${cell}.tfstate`,
        region: state.region,
        encrypt: true,
        dynamodbTable: state.locking === "dynamodb" ? state.dynamodb_table : undefined,
      });
      // Native S3 lock files (Terraform >= 1.10, OpenTofu >= 1.8); cdktf 0.21 has no typed prop for it yet.
      if (state.locking === "s3") stack.addOverride("terraform.backend.s3.use_lockfile", true);
      return;
    }
    case "http": {
      const address = gitlabStateAddress(state.api_url, state.project_id, state.state_name);
      new HttpBackend(stack, {
        address,
        lockAddress: `${address}/lock`,
        unlockAddress: `${address}/lock`,
        lockMethod: "POST",
        unlockMethod: "DELETE",
        retryWaitMin: 5,
      });
      return;
    }
  }
}

/** GitLab-managed Terraform state: <api v4 url>/projects/:id/terraform/state/:name. */
export function gitlabStateAddress(apiUrl: string, projectId: number | string, stateName: string): string {
  const base = apiUrl.replace(/\/+$/, "");
  return `${base}/projects/${encodeURIComponent(String(projectId))}/terraform/state/${encodeURIComponent(stateName)}`;
}
