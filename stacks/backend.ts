/**
 * The Terraform state backend of a cell's stack, from `state:` in the model, as
 * lib/terraform/backend-block.ts words it (which `status --read-state` inits alone).
 * Credentials never go into the synthesized JSON: the http backend reads
 * TF_HTTP_USERNAME / TF_HTTP_PASSWORD from the environment at plan/apply time.
 */
import { GcsBackend, HttpBackend, LocalBackend, S3Backend, type TerraformStack } from "cdktf";
import type { RunnerModel } from "../lib/model/schema";
import { workspaceDir } from "../lib/files/workspace";
import { backendBlock } from "../lib/terraform/backend-block";

export { DEFAULT_LOCAL_STATE_DIR } from "../lib/model/derived-defaults";
export { gitlabStateAddress } from "../lib/terraform/backend-block";

export function configureBackend(stack: TerraformStack, model: RunnerModel, options: { /** @default the workspace (lib/files/workspace.ts) */ workDir?: string } = {}): void {
  const block = backendBlock(model, options.workDir ?? workspaceDir());
  switch (block.type) {
    case "local":
      new LocalBackend(stack, { ...block.config });
      return;
    case "gcs":
      new GcsBackend(stack, { ...block.config });
      return;
    case "s3": {
      const { config } = block;
      new S3Backend(stack, { bucket: config.bucket, key: config.key, region: config.region, encrypt: config.encrypt, dynamodbTable: config.dynamodb_table });
      // Native S3 lock files (Terraform >= 1.10, OpenTofu >= 1.8); cdktf 0.21 has no typed prop for it yet.
      if (config.use_lockfile) stack.addOverride("terraform.backend.s3.use_lockfile", true);
      return;
    }
    case "http": {
      const { config } = block;
      new HttpBackend(stack, {
        address: config.address,
        lockAddress: config.lock_address,
        unlockAddress: config.unlock_address,
        lockMethod: config.lock_method,
        unlockMethod: config.unlock_method,
        retryWaitMin: config.retry_wait_min,
      });
      return;
    }
  }
}
