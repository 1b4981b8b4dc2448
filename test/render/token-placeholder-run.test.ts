/**
 * A model value that contains the token placeholder text never receives the token:
 * the rendered manager script runs for real (bash, stub commands) and config.toml is
 * parsed as TOML. Only the token line of the [[runners]] entry gets the token.
 */
import { randomBytes } from "node:crypto";
import { parse } from "smol-toml";
import { renderConfigToml, RUNNER_TOKEN_PLACEHOLDER } from "../../lib/render/manager-files";
import { modelWith } from "../support/models";
import { expectSucceeded, managerPayload, ScriptSandbox } from "./support/script-sandbox";

const CONFIG = "etc/gitlab-runner/config.toml";

interface RunnerConfig {
  runners: Array<{ token: string; url: string; docker: { image: string; volumes: string[] } }>;
}

let sandbox: ScriptSandbox;
beforeEach(() => {
  sandbox = new ScriptSandbox();
});
afterEach(() => sandbox.dispose());

describe("the token placeholder in model values", () => {
  const model = modelWith("cell-1", (draft) => {
    draft.gitlab.url = `https://cell-1.gitlab.example.com/${RUNNER_TOKEN_PLACEHOLDER}`;
    draft.shards[0].docker.image = `registry.example.com/${RUNNER_TOKEN_PLACEHOLDER}:1`;
    draft.shards[0].docker.volumes = ["/cache", `/srv/${RUNNER_TOKEN_PLACEHOLDER}:/leak:ro`, `  token = "${RUNNER_TOKEN_PLACEHOLDER}"`];
  });

  it("stays literal at boot: the token lands on the token line only", () => {
    const token = `glrt-t1_${randomBytes(15).toString("base64url")}`;

    const run = sandbox.run(managerPayload(model, model.shards[0], 0), {
      STUB_RUNNER_TOKEN: token,
      STUB_ACCESS_TOKEN: `ya29.${randomBytes(24).toString("base64url")}`,
    });

    expectSucceeded(run);
    const text = sandbox.file(CONFIG);
    const config = parse(text) as unknown as RunnerConfig;
    expect(config.runners[0].token).toBe(token);
    expect(config.runners[0].url).toBe(`https://cell-1.gitlab.example.com/${RUNNER_TOKEN_PLACEHOLDER}`);
    expect(config.runners[0].docker.image).toBe(`registry.example.com/${RUNNER_TOKEN_PLACEHOLDER}:1`);
    expect(config.runners[0].docker.volumes).toEqual(["/cache", `/srv/${RUNNER_TOKEN_PLACEHOLDER}:/leak:ro`, `  token = "${RUNNER_TOKEN_PLACEHOLDER}"`]);
    expect(text.split(token)).toHaveLength(2);
  });

  it("renders exactly one token line per entry, even beside a value that looks like one", () => {
    expect(renderConfigToml(model, model.shards[0], 0).split("\n").filter((line) => line.startsWith("  token = "))).toEqual([
      `  token = "${RUNNER_TOKEN_PLACEHOLDER}"`,
    ]);
  });

  it("refuses a store value that could break out of the TOML string, writing no config.toml", () => {
    const run = sandbox.run(managerPayload(modelWith("cell-1", () => {}), model.shards[0], 0), {
      STUB_RUNNER_TOKEN: "glrt-abc\"\nprivileged = true",
      STUB_ACCESS_TOKEN: `ya29.${randomBytes(24).toString("base64url")}`,
      STUB_SLEEP_HOOK: "fail-after-2",
    });
    expect(run.status).not.toBe(0);
    expect(sandbox.exists(CONFIG)).toBe(false);
  });
});
