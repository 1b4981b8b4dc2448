/**
 * A cell's `terraform { backend "<type>" { ... } }` block as Terraform JSON: what stacks/backend.ts
 * configures in the stack, for a workspace that holds nothing else. `status --read-state` inits one
 * to read the applied version from a remote state without synthesizing the cell: with no providers,
 * `init` only configures the backend. A test keeps this equal to the block the stack synthesizes.
 */
import { resolve } from "node:path";
import { stateWithDefaults } from "../model/derived-defaults";
import type { RunnerModel } from "../model/schema";

/** The block's type and attributes, under Terraform's names. */
export type BackendBlock =
  | { readonly type: "local"; readonly config: { readonly path: string } }
  | { readonly type: "gcs"; readonly config: { readonly bucket: string; readonly prefix: string } }
  | { readonly type: "s3"; readonly config: S3BackendConfig }
  | { readonly type: "http"; readonly config: HttpBackendConfig };

interface S3BackendConfig {
  readonly bucket: string;
  readonly key: string;
  readonly region: string;
  readonly encrypt: true;
  readonly dynamodb_table?: string;
  /** Native S3 lock files (Terraform >= 1.10, OpenTofu >= 1.8). */
  readonly use_lockfile?: true;
}

interface HttpBackendConfig {
  readonly address: string;
  readonly lock_address: string;
  readonly unlock_address: string;
  readonly lock_method: "POST";
  readonly unlock_method: "DELETE";
  readonly retry_wait_min: number;
}

/** `workDir` resolves a relative local state path, as provision does. */
export function backendBlock(model: RunnerModel, workDir: string): BackendBlock {
  const state = stateWithDefaults(model);
  switch (state.backend) {
    case "local":
      return { type: "local", config: { path: resolve(workDir, state.path) } };
    case "gcs":
      return { type: "gcs", config: { bucket: state.bucket, prefix: state.prefix } };
    case "s3":
      return {
        type: "s3",
        config: {
          bucket: state.bucket,
          key: `${state.key_prefix}/${model.cell.id}.tfstate`,
          region: state.region,
          encrypt: true,
          ...(state.locking === "dynamodb" ? { dynamodb_table: state.dynamodb_table } : {}),
          ...(state.locking === "s3" ? { use_lockfile: true } : {}),
        },
      };
    case "http": {
      const address = gitlabStateAddress(state.api_url, state.project_id, state.state_name);
      return {
        type: "http",
        config: { address, lock_address: `${address}/lock`, unlock_address: `${address}/lock`, lock_method: "POST", unlock_method: "DELETE", retry_wait_min: 5 },
      };
    }
  }
}

/** GitLab-managed Terraform state: <api v4 url>/projects/:id/terraform/state/:name. */
export function gitlabStateAddress(apiUrl: string, projectId: number | string, stateName: string): string {
  const base = apiUrl.replace(/\/+$/, "");
  return `${base}/projects/${encodeURIComponent(String(projectId))}/terraform/state/${encodeURIComponent(stateName)}`;
}

/** Where the block keeps the state, for messages: `gs://bucket/prefix`, `s3://bucket/key`, the http address, the local path. */
export function describeBackend(block: BackendBlock): string {
  switch (block.type) {
    case "local":
      return block.config.path;
    case "gcs":
      return `gs://${block.config.bucket}/${block.config.prefix}`;
    case "s3":
      return `s3://${block.config.bucket}/${block.config.key}`;
    case "http":
      return block.config.address;
  }
}
