import { AwsProvider } from "@cdktf/provider-aws/lib/provider";
import { GoogleProvider } from "@cdktf/provider-google/lib/provider";
import { Testing } from "cdktf";
import { CellStack } from "../../stacks/cell-stack";
import { exampleModel, modelWith } from "../support/models";

function synthJson(model: ReturnType<typeof exampleModel>) {
  const app = Testing.app();
  const stack = new CellStack(app, { model, workDir: "/srv/fleet" });
  const text = Testing.synth(stack);
  return { stack, text, json: JSON.parse(text) };
}

/** Each example synthesized once for this file, on first use: its tests only read it. */
const examples = new Map<"cell-1" | "cell-2", ReturnType<typeof synthJson>>();
function exampleJson(name: "cell-1" | "cell-2"): ReturnType<typeof synthJson> {
  if (!examples.has(name)) examples.set(name, synthJson(exampleModel(name)));
  return examples.get(name)!;
}

describe("CellStack", () => {
  it("is named after the cell and configures the Google provider with the cell's labels", () => {
    const { stack, text, json } = exampleJson("cell-1");
    expect(stack.node.id).toBe("cell-1");
    expect(text).toHaveProviderWithProperties(GoogleProvider, { project: "acme-runners-cell-1", region: "europe-west4" });
    // Label keys are data, not attribute names: checked on the raw JSON, where they keep their dashes.
    expect(json.provider.google[0].default_labels).toEqual({
      "gitlab-cell": "cell-1",
      team: "runner-platform",
      environment: "production",
      "cost-center": "ci",
      "managed-by": "runner-fleet",
    });
  });

  it("refuses AWS credentials of another account than the model names", () => {
    const { text } = exampleJson("cell-2");
    expect(text).toHaveProviderWithProperties(AwsProvider, { region: "eu-west-1", allowed_account_ids: ["123456789012"] });
  });

  it("keeps the gcs backend of the model", () => {
    expect(exampleJson("cell-1").json.terraform.backend).toEqual({
      gcs: { bucket: "acme-terraform-state", prefix: "runner-fleet/cell-1" },
    });
  });

  it("uses S3 native lock files, encrypted state, and a per-cell key", () => {
    expect(exampleJson("cell-2").json.terraform.backend.s3).toEqual({
      bucket: "acme-terraform-state-eu-west-1",
      key: "runner-fleet/cell-2.tfstate",
      region: "eu-west-1",
      encrypt: true,
      use_lockfile: true,
    });
  });

  it("uses a DynamoDB lock table when the model asks for one", () => {
    const model = modelWith("cell-2", (m) => {
      m.state = { backend: "s3", bucket: "b-tf", key_prefix: "fleet", region: "eu-west-1", locking: "dynamodb", dynamodb_table: "tf-locks" };
    });
    const backend = synthJson(model).json.terraform.backend.s3;
    expect(backend).toMatchObject({ dynamodb_table: "tf-locks", key: "fleet/cell-2.tfstate" });
    expect(backend.use_lockfile).toBeUndefined();
  });

  it("keeps local state outside cdktf.out, one file per cell", () => {
    const model = modelWith("cell-1", (m) => {
      m.state = { backend: "local" };
    });
    expect(synthJson(model).json.terraform.backend.local.path).toBe("/srv/fleet/.state/terraform/cell-1.tfstate");
  });

  it("points GitLab-managed state at the project's state API and writes no credentials", () => {
    const model = modelWith("cell-1", (m) => {
      m.state = { backend: "http", project_id: "infra/runner-models", username_env: "GITLAB_USER_LOGIN", password_env: "GITLAB_TOKEN" };
    });
    const backend = synthJson(model).json.terraform.backend.http;
    const address = "https://cell-1.gitlab.example.com/api/v4/projects/infra%2Frunner-models/terraform/state/cell-1";
    expect(backend).toMatchObject({ address, lock_address: `${address}/lock`, unlock_address: `${address}/lock`, lock_method: "POST", unlock_method: "DELETE" });
    expect(backend.username).toBeUndefined();
    expect(backend.password).toBeUndefined();
  });
});

describe("CellStack.resolveAhead (the synthesis threads resolve while they build, before any writes)", () => {
  // That a synth with it writes byte for byte what cdktf's own path writes: test/stacks/synthesize.test.ts.
  it("hands cdktf's synth the JSON it resolved, once, with the literal-text escape applied", () => {
    // cell-1: Google's startup scripts are plain text in the JSON (AWS's user data is compressed).
    const model = exampleModel("cell-1");
    const ahead = new CellStack(Testing.app(), { model, workDir: "/srv/fleet" });
    ahead.resolveAhead();
    const first = ahead.toTerraform();
    // Handed out once: the next call resolves afresh, to the same JSON.
    expect(ahead.toTerraform()).not.toBe(first);
    expect(ahead.toTerraform()).toEqual(first);
    // Escaped as the synth's own aspect pass escapes it: `$${` for a literal `${` in the boot scripts.
    expect(JSON.stringify(first).includes("$${")).toBe(true);
  });
});
