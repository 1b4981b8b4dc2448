import { randomBytes } from "node:crypto";
import { KnownSecrets } from "../../lib/secrets/known-secrets";
import { ENGINE_ENV_PASSTHROUGH, engineEnvironment } from "../../lib/terraform/engine-env";
import { EngineDriver } from "../../lib/terraform/engine";
import { FAKE_TERRAFORM, fakeEngineWorkspace } from "../support/fake-terraform-workspace";

const secret = () => randomBytes(16).toString("hex");

describe("engineEnvironment", () => {
  it("passes the engine's settings, cloud credentials and process basics, and nothing else", () => {
    const env = engineEnvironment({
      PATH: "/usr/bin",
      HOME: "/home/op",
      TF_LOG: "info",
      TF_HTTP_ADDRESS: "https://gitlab.example.com/state",
      AWS_PROFILE: "fleet",
      GOOGLE_OAUTH_ACCESS_TOKEN: "ya29.x",
      HTTPS_PROXY: "http://proxy:3128",
      GITLAB_TOKEN: secret(),
      GITLAB_REVIEW_TOKEN: secret(),
      MY_ADMIN_TOKEN: secret(),
      SSH_AUTH_SOCK: "/tmp/agent",
    });
    expect(Object.keys(env).sort()).toEqual(["AWS_PROFILE", "GOOGLE_OAUTH_ACCESS_TOKEN", "HOME", "HTTPS_PROXY", "PATH", "TF_HTTP_ADDRESS", "TF_LOG"]);
  });

  it("passes names and prefixes listed in $RUNNER_FLEET_ENGINE_ENV, but never a withheld one", () => {
    const env = engineEnvironment(
      { [ENGINE_ENV_PASSTHROUGH]: "ARM_*, KUBECONFIG GITLAB_TOKEN", ARM_CLIENT_ID: "id", KUBECONFIG: "/k", GITLAB_TOKEN: secret(), OTHER: "x" },
      { withhold: ["GITLAB_TOKEN"] },
    );
    expect(Object.keys(env).sort()).toEqual(["ARM_CLIENT_ID", "KUBECONFIG"]);
  });

  it("adds the state backend's credentials under the engine's names", () => {
    const password = secret();
    expect(engineEnvironment({ STATE_TOKEN: password }, { add: { TF_HTTP_PASSWORD: password } })).toEqual({ TF_HTTP_PASSWORD: password });
  });

  it("withholds a variable the model names for the admin token even when it looks like an engine setting", async () => {
    const workspace = fakeEngineWorkspace();
    const token = secret();
    const driver = new EngineDriver({ engine: "terraform", executable: FAKE_TERRAFORM, cwd: workspace.stackDir, env: workspace.env({ TF_VAR_admin: token }), withholdEnv: ["TF_VAR_admin"] });
    await driver.init();
    expect(workspace.calls()[0].envNames).not.toContain("TF_VAR_admin");
    expect(workspace.calls()[0].envNames).toContain("TF_IN_AUTOMATION");
  });
});

describe("KnownSecrets", () => {
  it("scrubs secret-looking variables and named ones by value, longest first", () => {
    const awsKey = secret();
    const admin = secret();
    const known = new KnownSecrets({ AWS_SECRET_ACCESS_KEY: awsKey, CUSTOM_ADMIN: admin, GOOGLE_APPLICATION_CREDENTIALS: "/etc/creds.json", SHORT_TOKEN: "abc" }, ["CUSTOM_ADMIN"]);
    const longer = `${awsKey}${admin}`;
    known.add(longer);
    const text = known.redact(`a=${awsKey} b=${admin} c=${longer} path=/etc/creds.json short=abc`);
    for (const value of [awsKey, admin, longer]) expect(text).not.toContain(value);
    expect(text).toContain("path=/etc/creds.json");
    expect(text).toContain("short=abc");
  });

  it("still scrubs GitLab tokens by prefix", () => {
    const token = `glrt-${secret()}`;
    expect(new KnownSecrets().redact(`token ${token}`)).not.toContain(token);
  });
});
