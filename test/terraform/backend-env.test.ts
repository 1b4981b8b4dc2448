import { randomBytes } from "node:crypto";
import { UserInputError } from "../../lib/process/errors";
import { backendEnvironment } from "../../lib/terraform/backend-env";
import { exampleModel, modelWith } from "../support/models";

const gitlabState = (extra: { username_env?: string; password_env?: string } = {}) =>
  modelWith("cell-1", (model) => {
    model.state = { backend: "http", project_id: "infra/runner-state", username_env: extra.username_env ?? "GITLAB_USER_LOGIN", password_env: extra.password_env ?? "GITLAB_TOKEN" };
  });

describe("backendEnvironment", () => {
  it("hands GitLab-managed state credentials to the engine as TF_HTTP_USERNAME and TF_HTTP_PASSWORD", () => {
    const token = `glpat-${randomBytes(12).toString("hex")}`;

    expect(backendEnvironment(gitlabState(), { GITLAB_USER_LOGIN: "deployer", GITLAB_TOKEN: token })).toEqual({ TF_HTTP_USERNAME: "deployer", TF_HTTP_PASSWORD: token });
  });

  it("reads the variables the model names", () => {
    const model = gitlabState({ username_env: "STATE_USER", password_env: "STATE_TOKEN" });

    expect(backendEnvironment(model, { STATE_USER: "ci", STATE_TOKEN: "secret-value", GITLAB_TOKEN: "other" })).toEqual({ TF_HTTP_USERNAME: "ci", TF_HTTP_PASSWORD: "secret-value" });
  });

  it("adds nothing for GCS and S3 state", () => {
    expect(backendEnvironment(exampleModel("cell-1"), { GITLAB_TOKEN: "x" })).toEqual({});
    expect(backendEnvironment(exampleModel("cell-2"), { GITLAB_TOKEN: "x" })).toEqual({});
  });

  it("fails when the state token variable is not set", () => {
    expect(() => backendEnvironment(gitlabState(), { GITLAB_USER_LOGIN: "deployer" })).toThrow(
      new UserInputError(
        "cell cell-1 keeps its state in GitLab (state.backend: http, project infra/runner-state), which needs GITLAB_TOKEN (state.password_env: a token with access to the project's Terraform state) in the environment; it is not set",
      ),
    );
  });

  it("fails when both variables are missing or empty, naming both", () => {
    const error = (() => {
      try {
        backendEnvironment(gitlabState({ username_env: "STATE_USER", password_env: "STATE_TOKEN" }), { STATE_USER: "" });
      } catch (caught) {
        return caught as Error;
      }
      return undefined;
    })();

    expect(error).toBeInstanceOf(UserInputError);
    expect(error?.message).toContain("needs STATE_USER (state.username_env: the state user name) and STATE_TOKEN (state.password_env");
    expect(error?.message).toContain("they are not set");
  });
});
