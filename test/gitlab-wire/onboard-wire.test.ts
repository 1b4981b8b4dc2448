/**
 * End to end: bin/onboard against a local server that is not a sane GitLab. Each case must end
 * in bounded time, exit 1 with one clear line naming the host, no stack trace, no token in the
 * output, and nothing written (no secret store, no write request). The first case runs the real
 * executable (compiled bundle); the others go through the same command line and error handler
 * in this process (runInProcess), as a process costs ~0.3 CPU-s.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import type { ServerResponse } from "node:http";
import { join } from "node:path";
import { stringify } from "yaml";
import { STATE_DIR_ENV } from "../../lib/state/cell-lock";
import { runInProcess, STACK_TRACE_LINE } from "../support/cli";
import { json, startHostileServer, type HostileServer } from "../support/hostile-server";
import { modelWith } from "../support/models";

const BIN = join(__dirname, "..", "..", "bin", "onboard");
const TOKEN = "glpat-onboardWireTest0123";
let gitlab: HostileServer;
let elsewhere: HostileServer;
let root: string;

beforeEach(async () => {
  gitlab = await startHostileServer();
  elsewhere = await startHostileServer((_request, response) => json(response, []));
  root = mkdtempSync(join(tmpdir(), "onboard-wire-"));
});
afterEach(async () => {
  await gitlab.stop();
  await elsewhere.stop();
});

interface Run {
  readonly code: number;
  readonly output: string;
  readonly ms: number;
}

function onboard(gitlabSettings: Record<string, unknown> = {}, where: "a process" | "this process" = "this process"): Promise<Run> {
  const model = modelWith("cell-1", (draft) => {
    Object.assign(draft.gitlab, { url: gitlab.url, ...gitlabSettings });
    draft.secrets.store = "local";
    draft.secrets.local_dir = join(root, "secrets");
  });
  const modelFile = join(root, "cell-1.yaml");
  writeFileSync(modelFile, stringify(model));
  const env = { PATH: process.env.PATH, GITLAB_TOKEN: TOKEN, ONBOARD_RETRY_TIMEOUT: "2s", [STATE_DIR_ENV]: join(root, "state") };
  const startedAt = Date.now();
  if (where === "this process") {
    return runInProcess("onboard", ["--model", modelFile], { cwd: root, env }).then(({ status, stdout, stderr }) => ({ code: status, output: stdout + stderr, ms: Date.now() - startedAt }));
  }
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, "--model", modelFile], { cwd: root, env }, (error, stdout, stderr) =>
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, output: stdout + stderr, ms: Date.now() - startedAt }),
    );
  });
}

const expectCleanFailure = (run: Run, mentions: readonly string[]) => {
  expect(run.code).toBe(1);
  for (const text of mentions) expect(run.output).toContain(text);
  expect(run.output).toContain(gitlab.url);
  expect(run.output).not.toMatch(STACK_TRACE_LINE);
  expect(run.output).not.toContain(TOKEN);
  expect(gitlab.requests.filter((request) => request.method !== "GET")).toEqual([]);
  // The store is opened (and checked) before GitLab is asked anything; no token may land in it.
  const secrets = join(root, "secrets");
  expect(existsSync(secrets) ? readdirSync(secrets) : []).toEqual([]);
};

const html = (response: ServerResponse) => {
  response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
  response.end("<!DOCTYPE html><title>Sign in</title>");
};

test("fails when GitLab redirects to another address, which never sees a request or the token", async () => {
  gitlab.handle = (request, response) => {
    response.writeHead(307, { location: `${elsewhere.url}${request.url}` });
    response.end();
  };
  const run = await onboard({}, "a process");
  expectCleanFailure(run, [`redirect (307) to ${elsewhere.url}/api/v4/`, "the token is not sent there"]);
  expect(elsewhere.requests).toEqual([]);
  expect(gitlab.requests.every((request) => request.headers["private-token"] === TOKEN)).toBe(true);
});

test.each([
  ["an HTML 200", html, ["text/html instead of JSON"]],
  ["cut-short JSON", (response: ServerResponse) => {
    response.writeHead(200, { "content-type": "application/json" });
    response.end('[{"id": 1, "descr');
  }, ["JSON that does not parse"]],
  ["a 10 MB body", (response: ServerResponse) => {
    response.writeHead(200, { "content-type": "application/json" });
    response.on("error", () => undefined);
    response.end(Buffer.alloc(10 * 1024 * 1024, " "));
  }, ["more than 4 MiB"]],
  ["ids of the wrong type", (response: ServerResponse) => json(response, [{ id: "1", description: "x", paused: false, is_shared: true, runner_type: "instance_type", online: null, status: "online", ip_address: null, name: null, active: true }]), ["id: Invalid input: expected number"]],
  ["a listing that loops", (response: ServerResponse) => json(response, [{ id: 1, description: "x", paused: false, is_shared: true, runner_type: "instance_type", online: null, status: "online", ip_address: null, name: null, active: true }], 200, { link: `<${gitlab.url}/api/v4/runners/all?page=1&per_page=100&type=instance_type>; rel="next"` }), ["loops: its next page is one already read"]],
])("fails on %s with one clear error", async (_name, handler, mentions) => {
  gitlab.handle = (_request, response) => handler(response);
  const run = await onboard();
  expectCleanFailure(run, mentions);
  expect(run.ms).toBeLessThan(15_000);
});

test("fails in bounded time when GitLab accepts and never answers (request_timeout, retry budget)", async () => {
  gitlab.handle = () => undefined;
  const run = await onboard({ request_timeout: "1s" });
  expectCleanFailure(run, ["the request timed out", "gave up after"]);
  // 2s retry budget + one 1s attempt + process start, not 30s per attempt.
  expect(run.ms).toBeLessThan(10_000);
});
