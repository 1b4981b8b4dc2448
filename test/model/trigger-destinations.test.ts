/**
 * A trigger decides nothing about where secrets go (lib/model/trigger-destinations.ts): STATE_API_URL
 * only this project's own API, GITLAB_TOKEN_ENV only the variable the project configured, GITLAB_URL
 * only a GitLab the project lists. `prepare --generate` is the triggered job's first step, so a refusal
 * (exit 2) comes before any request: a capture server standing where a trigger points sees none.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "yaml";
import { runInProcess, STACK_TRACE_LINE } from "../support/cli";

const VARIABLES = { CELL_ID: "cell-7", GITLAB_URL: "https://cell-7.gitlab.example.com", CLOUD: "google", REGION: "us-east1", PROJECT: "acme-runners-cell-7" };
/** A GitLab job of this project: its own API, and the job token the state backend would send. */
const JOB = { CI: "true", CI_API_V4_URL: "https://gitlab.example.com/api/v4", CI_PROJECT_ID: "42", CI_JOB_TOKEN: "job-token-value" };
/** What the component passes (templates/runner-fleet.yml, provision:triggered), from its inputs. */
const COMPONENT_FLAGS = ["--admin-token-env", "GITLAB_TOKEN", "--allowed-gitlab-urls", "https://cell-7.gitlab.example.com https://cell-8.gitlab.example.com/"];

let scratch: string;
let dir: string;
let capture: Server;
let captureUrl: string;
const captured: string[] = [];
beforeAll(async () => {
  capture = createServer((request, response) => {
    captured.push(`${request.method} ${request.url}`);
    response.end("{}");
  });
  await new Promise<void>((resolve) => capture.listen(0, "127.0.0.1", resolve));
  captureUrl = `http://127.0.0.1:${(capture.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => capture.close(() => resolve())));
beforeEach(() => {
  scratch = mkdtempSync(join(tmpdir(), "trigger-destinations-"));
  dir = join(scratch, "models");
  captured.length = 0;
});
afterEach(() => rmSync(scratch, { recursive: true, force: true }));

const generate = (variables: Record<string, string>, flags: readonly string[] = COMPONENT_FLAGS) =>
  runInProcess("prepare", ["--generate", "--if-missing", "--models-dir", dir, ...flags], { env: { PATH: process.env.PATH, HOME: process.env.HOME, ...JOB, ...VARIABLES, ...variables } });
const generatedModel = () => parse(readFileSync(join(dir, "cell-7.yaml"), "utf8"));
const written = () => (existsSync(dir) ? readdirSync(dir) : []);

describe("STATE_API_URL", () => {
  it("fails when it names another host (plain http included): exit 2, nothing written, no request", async () => {
    const result = await generate({ STATE_API_URL: `${captureUrl}/api/v4` });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain(`STATE_API_URL: expected this project's own GitLab API, https://gitlab.example.com/api/v4 ($CI_API_V4_URL), or nothing; received "${captureUrl}/api/v4"`);
    expect(result.stderr).not.toMatch(STACK_TRACE_LINE);
    expect(written()).toEqual([]);
    expect(captured).toEqual([]);
  });

  it("fails outside a GitLab job, where there is no project API to compare with", async () => {
    const result = await runInProcess("prepare", ["--generate", "--models-dir", dir], { env: { PATH: process.env.PATH, HOME: process.env.HOME, ...VARIABLES, STATE_BACKEND: "http", STATE_API_URL: "https://gitlab.example.com/api/v4", STATE_PROJECT: "42" } });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain("STATE_API_URL: expected this project's own GitLab API ($CI_API_V4_URL), which is not set here");
  });

  it("is accepted when it is the project's own API (a trailing slash aside)", async () => {
    const result = await generate({ STATE_API_URL: "https://gitlab.example.com/api/v4/" });
    expect(result.stderr).not.toMatch(STACK_TRACE_LINE);
    expect(result.status).toBe(0);
    expect(generatedModel().state).toMatchObject({ backend: "http", api_url: "https://gitlab.example.com/api/v4/", password_env: "CI_JOB_TOKEN" });
  });
});

describe("GITLAB_TOKEN_ENV", () => {
  // Each passed the former denylist: the first is the job token the component sets, the others other credentials.
  it.each(["RUNNER_FLEET_NPM_TOKEN", "NPM_TOKEN", "CLOUDSDK_AUTH_ACCESS_TOKEN", "MY_OTHER_SECRET"])("fails when it names %s instead of the configured variable", async (name) => {
    const result = await generate({ GITLAB_TOKEN_ENV: name });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain(`GITLAB_TOKEN_ENV: expected the variable this project keeps the GitLab admin token in, GITLAB_TOKEN (the component's input gitlab_token_env), or nothing; received "${name}"`);
    expect(written()).toEqual([]);
  });

  it("fails when it names the default while the project configured another", async () => {
    const result = await generate({ GITLAB_TOKEN_ENV: "GITLAB_TOKEN" }, ["--admin-token-env", "CELLS_ADMIN_TOKEN", "--allowed-gitlab-urls", VARIABLES.GITLAB_URL]);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain("expected the variable this project keeps the GitLab admin token in, CELLS_ADMIN_TOKEN");
  });

  it("is the configured variable in the model when the trigger names it or leaves it out", async () => {
    const flags = ["--admin-token-env", "CELLS_ADMIN_TOKEN", "--allowed-gitlab-urls", VARIABLES.GITLAB_URL];
    expect((await generate({}, flags)).status).toBe(0);
    expect(generatedModel().gitlab.token_env).toBe("CELLS_ADMIN_TOKEN");
    rmSync(dir, { recursive: true });
    expect((await generate({ GITLAB_TOKEN_ENV: "CELLS_ADMIN_TOKEN" }, flags)).status).toBe(0);
    expect(generatedModel().gitlab.token_env).toBe("CELLS_ADMIN_TOKEN");
  });
});

describe("GITLAB_URL", () => {
  it("fails when the project does not list it: exit 2, no request to it", async () => {
    const result = await generate({ GITLAB_URL: captureUrl });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain(
      `GITLAB_URL: expected one of https://cell-7.gitlab.example.com, https://cell-8.gitlab.example.com/ (the component's input trigger_gitlab_urls); received "${captureUrl}" (the admin token would be sent there)`,
    );
    expect(written()).toEqual([]);
    expect(captured).toEqual([]);
  });

  it("fails when the project lists none (the component's default)", async () => {
    const result = await generate({}, ["--allowed-gitlab-urls", ""]);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain("GITLAB_URL: expected a GitLab this project lists, and it lists none");
  });

  it("is accepted when listed (a trailing slash aside)", async () => {
    const result = await generate({ GITLAB_URL: "https://cell-8.gitlab.example.com" });
    expect(result.status).toBe(0);
    expect(generatedModel().gitlab.url).toBe("https://cell-8.gitlab.example.com");
  });

  it("is not listed at a terminal without --allowed-gitlab-urls: the person running it chooses", async () => {
    const result = await generate({ GITLAB_URL: "https://gitlab.elsewhere.example.com" }, []);
    expect(result.status).toBe(0);
  });
});

it("fails with every problem at once, and also when the model exists (--if-missing keeps it but checks the trigger)", async () => {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "cell-7.yaml"), "# the reviewed model\n");
  const result = await generate({ GITLAB_URL: captureUrl, GITLAB_TOKEN_ENV: "NPM_TOKEN", STATE_API_URL: `${captureUrl}/api/v4` });
  expect(result.status).toBe(2);
  for (const name of ["GITLAB_URL", "GITLAB_TOKEN_ENV", "STATE_API_URL"]) expect(result.stderr).toContain(`  ${name}: expected`);
  expect(readFileSync(join(dir, "cell-7.yaml"), "utf8")).toBe("# the reviewed model\n");
  expect(captured).toEqual([]);
});
