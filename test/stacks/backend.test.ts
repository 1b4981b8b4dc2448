/**
 * stacks/backend.ts configures the stack's backend from lib/terraform/backend-block.ts, and
 * `status --read-state` inits that block alone: what the stack synthesizes must be the block, for
 * every kind of state a model can name.
 */
import { TerraformStack, Testing } from "cdktf";
import { backendBlock, describeBackend } from "../../lib/terraform/backend-block";
import type { RunnerModel } from "../../lib/model/schema";
import { configureBackend } from "../../stacks/backend";
import { modelWith } from "../support/models";

const STATES: ReadonlyArray<[string, RunnerModel["state"], string]> = [
  ["local, default path", { backend: "local" } as RunnerModel["state"], "/srv/fleet/.state/terraform/cell-1.tfstate"],
  ["gcs, default prefix", { backend: "gcs", bucket: "acme-tf" } as RunnerModel["state"], "gs://acme-tf/runner-fleet/cell-1"],
  ["s3 with a DynamoDB lock", { backend: "s3", bucket: "b-tf", key_prefix: "fleet", region: "eu-west-1", locking: "dynamodb", dynamodb_table: "tf-locks" }, "s3://b-tf/fleet/cell-1.tfstate"],
  ["s3 with its own lock file", { backend: "s3", bucket: "b-tf", key_prefix: "fleet", region: "eu-west-1", locking: "s3" } as RunnerModel["state"], "s3://b-tf/fleet/cell-1.tfstate"],
  [
    "GitLab-managed (http)",
    { backend: "http", project_id: "infra/runner-models", username_env: "GITLAB_USER_LOGIN", password_env: "GITLAB_TOKEN" } as RunnerModel["state"],
    "https://cell-1.gitlab.example.com/api/v4/projects/infra%2Frunner-models/terraform/state/cell-1",
  ],
];

test.each(STATES)("the stack's backend is the block status inits: %s", (_kind, state, where) => {
  const model = modelWith("cell-1", (m) => {
    m.state = state;
  });
  const stack = new TerraformStack(Testing.app(), "cell-1");
  configureBackend(stack, model, { workDir: "/srv/fleet" });
  const block = backendBlock(model, "/srv/fleet");

  expect(JSON.parse(Testing.synth(stack)).terraform.backend).toEqual({ [block.type]: block.config });
  expect(describeBackend(block)).toBe(where);
});
