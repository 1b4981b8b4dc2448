/**
 * A gitlab.url where nothing answers: a port that refuses connections (listened on, then closed)
 * and a host name that resolves nowhere (RFC 2606 keeps `.invalid` out of DNS). Against real
 * loopback sockets and the real resolver, `onboard` (with and without --dry-run), `onboard --status`,
 * `status` and `provision` end within seconds with one line per cause, naming the URL and what to
 * check, and say "unknown" for what they could not check. No ONBOARD_RETRY_TIMEOUT: the default
 * budget (2 minutes) is in force, so the time limit shows that nothing was retried.
 *
 * And what still is retried: the same refusal once GitLab has answered in the run (a restart
 * mid-run) goes on to the retry budget.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createGitLabClient } from "../../lib/gitlab/client";
import { GitLabApiError } from "../../lib/gitlab/errors";
import type { GitLabContact } from "../../lib/gitlab/requester";
import { GitLabTraffic } from "../../lib/gitlab/traffic";
import { STATE_DIR_ENV } from "../../lib/state/cell-lock";
import { runBinAsync, runInProcess, STACK_TRACE_LINE, type CliResult } from "../support/cli";
import { closedPort } from "../support/fake-gitlab-setup";
import { FAKE_ENGINE_SETTINGS_PASS, pathWithFakeEngines, readFakeCalls } from "../support/fake-terraform-workspace";
import { MODELS_DIR } from "../support/models";
import { fakeClock } from "../onboard/helpers";

const TOKEN = "glpat-notReachedTest01234";
/** What the issue allows; the runs below take well under a second each on an idle machine. */
const FAIL_FAST_MS = 15_000;

let root: string;
let modelsDir: string;
let callLog: string;

/** cell-1 (two shards) pointed at `url`, with local state and the local secret store. */
function modelAt(url: string): void {
  root = mkdtempSync(join(tmpdir(), "not-reached-"));
  modelsDir = join(root, "models");
  callLog = join(root, "terraform-calls.jsonl");
  mkdirSync(modelsDir);
  const text = readFileSync(join(MODELS_DIR, "cell-1.yaml"), "utf8")
    .replace("https://cell-1.gitlab.example.com", url)
    .replace(/state:\n(  .*\n)+/, "state:\n  backend: local\n")
    .replace("store: google-secret-manager", `store: local\n  local_dir: ${join(root, "secrets")}`);
  writeFileSync(join(modelsDir, "cell-1.yaml"), text);
}

function env(): NodeJS.ProcessEnv {
  return { PATH: `${pathWithFakeEngines(["terraform"])}:/usr/bin:/bin`, HOME: root, GITLAB_TOKEN: TOKEN, [STATE_DIR_ENV]: join(root, "state"), FAKE_TF_LOG: callLog, ...FAKE_ENGINE_SETTINGS_PASS };
}

async function timed(run: () => Promise<CliResult>): Promise<CliResult & { readonly ms: number }> {
  const startedAt = Date.now();
  const result = await run();
  return { ...result, ms: Date.now() - startedAt };
}

const inProcess = (command: "onboard" | "status" | "provision", args: readonly string[]) =>
  timed(() => runInProcess(command, ["--model", "cell-1", "--models-dir", modelsDir, ...args], { cwd: root, env: env() }));

function expectFailedFast(run: CliResult & { readonly ms: number }): void {
  expect(run.status).toBe(1);
  expect(run.ms).toBeLessThan(FAIL_FAST_MS);
  expect(run.stdout + run.stderr).not.toMatch(STACK_TRACE_LINE);
  expect(run.stdout + run.stderr).not.toContain(TOKEN);
  // Nothing was retried: no "retrying in" progress line.
  expect(run.stderr).not.toContain("retrying");
}

describe("a port that refuses connections", () => {
  let url: string;
  let cause: string;
  beforeEach(async () => {
    const port = await closedPort();
    url = `http://127.0.0.1:${port}`;
    cause = `cannot reach GitLab at ${url}: the connection to 127.0.0.1:${port} was refused: nothing listens there. Check gitlab.url in the model (host and port) and that GitLab is running.`;
    modelAt(url);
  });

  test("fails when onboard --dry-run finds nothing there: one line for the cause, the shards not checked (the executable)", async () => {
    const run = await timed(() => runBinAsync("onboard", ["--model", "cell-1", "--models-dir", modelsDir, "--dry-run"], { cwd: root, env: env() }));

    expectFailedFast(run);
    expect(run.stdout).toBe(
      [
        `cell cell-1 on ${url} (dry run: nothing was changed)`,
        "  small-amd64  failed (not checked): GitLab could not be reached",
        "  large-amd64  failed (not checked): GitLab could not be reached",
        `error: ${cause}`,
        "1 GitLab request, 0ms waiting for the request rate",
        "",
      ].join("\n"),
    );
  });

  test("fails when onboard --status finds nothing there: the shards are unknown, not missing", async () => {
    const run = await inProcess("onboard", ["--status"]);

    expectFailedFast(run);
    expect(run.stdout).toBe(
      [
        `cell cell-1 on ${url}`,
        "SHARD        RUNNER  STATUS   MANAGERS  TOKEN",
        "small-amd64  ?       unknown  ?         not checked",
        "large-amd64  ?       unknown  ?         not checked",
        `error: ${cause}`,
        "1 GitLab request, 0ms waiting for the request rate",
        "",
      ].join("\n"),
    );
  });

  test("fails when status finds nothing there: 'unknown', never 'no runner' or 'managers 0/2 online'", async () => {
    const run = await inProcess("status", []);

    expectFailedFast(run);
    // The shards' job capacity is the example model's (max_instances x capacity_per_instance): not what is tested here.
    const lines = run.stdout.split("\n").map((line) => line.replace(/jobs \?\/\d+$/, "jobs ?/N"));
    expect(lines.slice(1)).toEqual([
      "  small-amd64  unknown (not checked)  managers ?/2  token not checked  jobs ?/N",
      "  large-amd64  unknown (not checked)  managers ?/2  token not checked  jobs ?/N",
      `  ! cell cell-1: ${cause}`,
      "1 problem(s) need attention",
      "1 GitLab request, 0ms waiting for the request rate",
      "",
    ]);
    expect(lines[0]).toMatch(new RegExp(`^cell-1  ${url.replace(/\./g, "\\.")}  \\(not checked\\)  `));
    expect(run.stdout).not.toContain("no runner");
    expect(run.stdout).not.toContain("0/2 online");
  });

  test("fails when provision cannot onboard: after the plan, one line, nothing applied", async () => {
    const run = await inProcess("provision", ["--auto-approve", "--out", join(root, "cdktf.out")]);

    expectFailedFast(run);
    expect(run.stderr).toContain(`error: onboarding ${join(modelsDir, "cell-1.yaml")} failed, nothing was applied (the plan is kept):\n  ${cause}\n`);
    expect(run.stderr.split(cause)).toHaveLength(2);
    const steps = readFakeCalls(callLog).map((call) => call.argv![0]).filter((step) => step !== "version");
    expect(steps).toEqual(["init", "plan", "show"]);
  });
});

describe("a host name that resolves nowhere (.invalid)", () => {
  const url = "https://gitlab.runner-fleet.invalid";
  const cause = `cannot reach GitLab at ${url}: the host name gitlab.runner-fleet.invalid does not resolve. Check gitlab.url in the model for a typo, and this machine's DNS.`;
  beforeEach(() => modelAt(url));

  test("fails when onboard finds no such host: one line for the cause", async () => {
    const run = await inProcess("onboard", []);

    expectFailedFast(run);
    expect(run.stdout).toBe(
      [
        `cell cell-1 on ${url}`,
        "  small-amd64  failed (not checked): GitLab could not be reached",
        "  large-amd64  failed (not checked): GitLab could not be reached",
        `error: ${cause}`,
        "1 GitLab request, 0ms waiting for the request rate",
        "",
      ].join("\n"),
    );
  });

  test("fails when status finds no such host: the shards are unknown", async () => {
    const run = await inProcess("status", ["--json"]);

    expectFailedFast(run);
    const report = JSON.parse(run.stdout);
    expect(report.attention).toEqual([`cell cell-1: ${cause}`]);
    expect(report.cells[0]).toMatchObject({ checked: false });
    for (const shard of report.cells[0].shards) {
      expect(shard).toMatchObject({ checked: false, onlineManagers: null, token: "not-checked", attention: [] });
      expect(shard).not.toHaveProperty("runnerId");
    }
  });
});

describe("a refused connection once GitLab has answered (a restart mid-run)", () => {
  let server: Server;
  afterEach(() => new Promise<void>((resolve) => (server.listening ? server.close(() => resolve()) : resolve())));

  let url: string;
  beforeEach(async () => {
    server = createServer((_request, response) => {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify([]));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  const stopGitLab = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  const clientOf = (retries: string[], contact?: GitLabContact) =>
    createGitLabClient({
      url,
      token: TOKEN,
      tokenEnv: "GITLAB_TOKEN",
      clock: fakeClock(),
      policy: { budgetMs: 5_000, baseDelayMs: 500, maxDelayMs: 2_000 },
      onRetry: (event) => retries.push(event.reason),
      ...(contact ? { contact } : {}),
    });

  test("is retried until the retry budget, as before", async () => {
    const retries: string[] = [];
    const client = clientOf(retries);

    await expect(client.listRunnerManagers(1, "list the managers")).resolves.toEqual([]);
    await stopGitLab();
    const error = await client.listRunnerManagers(1, "list the managers").catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(GitLabApiError);
    expect(error).toMatchObject({ kind: "gave-up" });
    expect((error as Error).message).toContain(`cannot reach GitLab at ${url} (GET /api/v4/runners/1/managers): the connection was refused`);
    expect(retries.length).toBeGreaterThan(0);
    expect(retries[0]).toBe("GET /api/v4/runners/1/managers failed: ECONNREFUSED");
  });

  test("is retried for every cell of the run once GitLab answered one of them (the run's traffic shares the contact)", async () => {
    const traffic = new GitLabTraffic({ requestsPerMinute: 0 }, fakeClock());
    const [firstCell, secondCell, anotherRun] = [[], [], []] as string[][];

    await clientOf(firstCell, traffic.contactWith(url)).listRunnerManagers(1, "list the managers");
    await stopGitLab();
    const inTheRun = await clientOf(secondCell, traffic.contactWith(`${url}/`)).listRunnerManagers(1, "list the managers").catch((caught: unknown) => caught);
    const inAnotherRun = await clientOf(anotherRun).listRunnerManagers(1, "list the managers").catch((caught: unknown) => caught);

    expect(inTheRun).toMatchObject({ kind: "gave-up" });
    expect(secondCell.length).toBeGreaterThan(0);
    expect(inAnotherRun).toMatchObject({ kind: "not-reached" });
    expect(anotherRun).toEqual([]);
  });
});
