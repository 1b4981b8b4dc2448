/**
 * `init --npm-registry`: a models repository that installs runner-fleet from a GitLab project's npm
 * registry gets a .npmrc for it (app/init/npmrc.ts), which the real npm reads as meant: every request to
 * that registry, the token from $RUNNER_FLEET_NPM_TOKEN when it is set and none when it is not.
 */
import { execFile, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "yaml";
import { runInit } from "../../app/commands/init";
import { NPM_TOKEN_VARIABLE } from "../../app/init/npmrc";
import { UserInputError } from "../../lib/process/errors";
import { REPO_ROOT, STACK_TRACE_LINE } from "../support/cli";

const REGISTRY = "https://gitlab.example.com/api/v4/projects/42/packages/npm/";
let root: string;
beforeEach(() => (root = mkdtempSync(join(tmpdir(), "init-npmrc-"))));
afterEach(() => rmSync(root, { recursive: true, force: true }));

const npmrc = (dir: string) => readFileSync(join(dir, ".npmrc"), "utf8");

test("writes the registry and its token's variable, with a trailing slash npm keys it by", () => {
  const result = runInit({ dir: root, npmRegistry: REGISTRY.slice(0, -1), lockfile: false });

  expect(npmrc(root).split("\n").filter((line) => !line.startsWith("#"))).toEqual([
    `registry=${REGISTRY}`,
    "//gitlab.example.com/api/v4/projects/42/packages/npm/:_authToken=${RUNNER_FLEET_NPM_TOKEN?}",
    "",
  ]);
  expect(result.files).toContainEqual({ path: ".npmrc", outcome: "created" });
  expect(result.notes).toContainEqual(expect.stringMatching(/^\.npmrc installs runner-fleet from https:\/\/gitlab\.example\.com\/api\/v4\/projects\/42\/packages\/npm\/: for a private project, export \$RUNNER_FLEET_NPM_TOKEN .*Job token permissions\)$/));
  expect(runInit({ dir: root, npmRegistry: REGISTRY, force: true, lockfile: false }).files).toContainEqual({ path: ".npmrc", outcome: "unchanged" });
});

test("merges into the team's .npmrc: its registry and that registry's token replaced, its other lines kept", () => {
  writeFileSync(join(root, ".npmrc"), "save-exact=true\nregistry=https://registry.npmjs.org/\n//gitlab.example.com/api/v4/projects/42/packages/npm/:_authToken=glpat-old\n");

  const result = runInit({ dir: root, npmRegistry: REGISTRY, lockfile: false });

  const lines = npmrc(root).split("\n");
  expect(lines[0]).toBe("save-exact=true");
  expect(lines.filter((line) => line.startsWith("registry="))).toEqual([`registry=${REGISTRY}`]);
  expect(lines.filter((line) => line.includes(":_authToken="))).toEqual(["//gitlab.example.com/api/v4/projects/42/packages/npm/:_authToken=${RUNNER_FLEET_NPM_TOKEN?}"]);
  expect(result.files).toContainEqual({ path: ".npmrc", outcome: "updated" });
  // Without --npm-registry there is no .npmrc to write: the team's stays as it is.
  expect(runInit({ dir: root, force: true, lockfile: false }).files.map((file) => file.path)).not.toContain(".npmrc");
});

test("refuses what is not a registry's URL before writing anything, and never echoes one with credentials", () => {
  expect(() => runInit({ dir: root, npmRegistry: "gitlab.example.com/api/v4/projects/42/packages/npm/", lockfile: false })).toThrow(
    new UserInputError(`--npm-registry: expected a registry's URL such as https://gitlab.example.com/api/v4/projects/42/packages/npm/, received "gitlab.example.com/api/v4/projects/42/packages/npm/"`),
  );
  expect(() => runInit({ dir: root, npmRegistry: "https://ci:glpat-secret-0123456789@gitlab.example.com/npm/", lockfile: false })).toThrow(
    new UserInputError(`--npm-registry: expected a registry's URL such as https://gitlab.example.com/api/v4/projects/42/packages/npm/, received one with credentials in it (the token goes in $${NPM_TOKEN_VARIABLE})`),
  );
  expect(() => runInit({ dir: root, npmRegistry: "ftp://gitlab.example.com/npm/", lockfile: false })).toThrow(UserInputError);

  const cli = spawnSync(process.execPath, [join(REPO_ROOT, "bin", "init"), "--npm-registry", "not a url", "--no-lockfile"], { cwd: root, encoding: "utf8" });
  expect(cli.status).toBe(2);
  expect(cli.stderr).toBe(`error: --npm-registry: expected a registry's URL such as https://gitlab.example.com/api/v4/projects/42/packages/npm/, received "not a url"\n`);
  expect(cli.stderr).not.toMatch(STACK_TRACE_LINE);
  expect(spawnSync("ls", ["-A", root], { encoding: "utf8" }).stdout).toBe("");
});

test("the component's jobs and the cells' child jobs give npm the job's token under that name", () => {
  const component = parse(readFileSync(join(REPO_ROOT, "templates", "runner-fleet.yml"), "utf8").split("\n---\n")[1]) as Record<string, { variables?: Record<string, string> }>;
  expect(component[".runner-fleet-job"].variables?.[NPM_TOKEN_VARIABLE]).toBe("${CI_JOB_TOKEN}");
  expect(readFileSync(join(REPO_ROOT, "templates", "ci", "cells.gitlab-ci.yml.hbs"), "utf8")).toContain(`\n.runner-fleet-cell:\n  image: {{json image}}\n  variables:\n    # npm ci reads it where runner-fleet comes from a GitLab project's npm registry (the component's note).\n    ${NPM_TOKEN_VARIABLE}: \${CI_JOB_TOKEN}\n`);
});

describe("with the real npm, against a registry stand-in", () => {
  let server: Server;
  const asked: Array<{ path: string; authorization?: string }> = [];
  beforeAll(async () => {
    // Knows no package: npm's first request (the packument, GET /<name>) gets the 404 an empty registry gives.
    server = createServer((request, response) => {
      asked.push({ path: request.url ?? "", authorization: request.headers.authorization });
      response.writeHead(404, { "content-type": "application/json" }).end('{"error":"404 Not Found"}');
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const registry = () => `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v4/projects/42/packages/npm/`;
  /**
   * bin/init with its lockfile step, npm from PATH (no npm_execpath), in an environment of its own. A
   * process of its own: init waits for npm, and this one's event loop answers npm's requests.
   */
  const initWithNpm = (dir: string, token?: string) => {
    mkdirSync(dir);
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: root, npm_config_cache: join(root, "npm-cache"), npm_config_update_notifier: "false", ...(token ? { [NPM_TOKEN_VARIABLE]: token } : {}) };
    return new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
      execFile(process.execPath, [join(REPO_ROOT, "bin", "init"), dir, "--npm-registry", registry()], { env, encoding: "utf8", timeout: 50_000 }, (error, stdout, stderr) =>
        resolve({ status: error ? ((error as { code?: number }).code ?? null) : 0, stdout, stderr }),
      );
    });
  };

  it("asks that registry for runner-fleet with the token, or with none, and says what it answered", async () => {
    const withToken = await initWithNpm(join(root, "a"), "glpat-npm-token-0123456789");
    const asRunnerFleet = asked.filter((request) => request.path === "/api/v4/projects/42/packages/npm/runner-fleet");
    expect(asRunnerFleet.map((request) => request.authorization)).toEqual(["Bearer glpat-npm-token-0123456789"]);
    // npm could not install: exit 1, the other files written, and what the registry said.
    expect(withToken.status).toBe(1);
    expect(withToken.stderr).toContain("npm could not install");
    // runner-fleet, the one package the seeded lockfile leaves to the registry (the store's SDK is in it at the tested version).
    expect(withToken.stderr).toMatch(/npm error 404 +The requested resource 'runner-fleet@[\d.]+' could not be found/);
    expect(withToken.stderr + withToken.stdout).not.toContain("glpat-npm-token-0123456789");
    expect(readFileSync(join(root, "a", ".npmrc"), "utf8")).toContain(`registry=${registry()}\n`);

    asked.length = 0;
    await initWithNpm(join(root, "b"));
    expect(asked.filter((request) => request.path.endsWith("/runner-fleet")).map((request) => request.authorization)).toEqual([undefined]);
    // Every request went to the project's registry, none to npmjs.org (there is no network here to hide one).
    expect(asked.every((request) => request.path.startsWith("/api/v4/projects/42/packages/npm/"))).toBe(true);
  }, 60_000);
});
