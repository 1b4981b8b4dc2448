/**
 * A self-managed GitLab behind a private CA and a corporate proxy: a local HTTPS server
 * whose certificate a throwaway CA signed (../support/private-ca.ts), and a CONNECT proxy
 * (../support/connect-proxy.ts). The client trusts gitlab.ca_file on top of Node's roots,
 * keeps honouring NODE_EXTRA_CA_CERTS, fails a handshake with one clear line, and tunnels
 * through the proxy unless no_proxy says otherwise.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { createGitLabClient } from "../../lib/gitlab/client";
import { GitLabApiError } from "../../lib/gitlab/errors";
import { bypassesProxy, type ConnectionSettings } from "../../lib/gitlab/wire/dispatcher";
import { fakeClock } from "../onboard/helpers";
import { startConnectProxy, type ConnectProxy } from "../support/connect-proxy";
import { json, startHostileServer, type HostileServer } from "../support/hostile-server";
import { makePrivateCa, type PrivateCa } from "../support/private-ca";
import { STATE_DIR_ENV } from "../../lib/state/cell-lock";
import { runInProcess, STACK_TRACE_LINE } from "../support/cli";
import { closedPort } from "../support/fake-gitlab-setup";
import { modelWith } from "../support/models";

const TOKEN = "glpat-privateCaTest012345";
let ca: PrivateCa;
let otherCa: PrivateCa;
let gitlab: HostileServer;

beforeAll(() => {
  ca = makePrivateCa();
  otherCa = makePrivateCa();
});
beforeEach(async () => {
  gitlab = await startHostileServer((_request, response) => json(response, []), { key: ca.key, cert: ca.cert });
});
afterEach(async () => gitlab.stop());

const list = (connection: ConnectionSettings = {}) =>
  createGitLabClient({ url: gitlab.url, token: TOKEN, tokenEnv: "GITLAB_TOKEN", clock: fakeClock(), connection }).listRunners({ runnerType: "instance_type" }, "list the instance runners");

test("fails with one line naming the host and the reason when GitLab's CA is not trusted, before sending anything", async () => {
  const error = await list().then(
    () => undefined,
    (caught: unknown) => caught as GitLabApiError,
  );
  expect(error).toBeInstanceOf(GitLabApiError);
  expect(error!.message).toMatch(
    new RegExp(`^cannot list the instance runners: cannot reach GitLab at ${gitlab.url} \\(GET /api/v4/runners/all\\): TLS verification failed: .*\\((SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE)\\)\\. If GitLab uses a private CA, set gitlab.ca_file`),
  );
  expect(error!.message).not.toContain("\n");
  expect(error!.transient).toBe(false);
  expect(gitlab.requests).toEqual([]); // the handshake failed: no request, no token, went out
});

test("trusts gitlab.ca_file's CA, end to end over TLS", async () => {
  await expect(list({ caBundle: ca.caPem })).resolves.toEqual([]);
  expect(gitlab.requests.map((request) => request.headers["private-token"])).toEqual([TOKEN]);
});

test("fails when ca_file holds another CA: the bundle adds trust, it does not switch verification off", async () => {
  await expect(list({ caBundle: otherCa.caPem })).rejects.toThrow("TLS verification failed");
});

test("keeps NODE_EXTRA_CA_CERTS trusted when a ca_file is also given (a ca option replaces Node's store)", async () => {
  const saved = process.env.NODE_EXTRA_CA_CERTS;
  process.env.NODE_EXTRA_CA_CERTS = ca.caFile;
  try {
    await expect(list({ caBundle: otherCa.caPem })).resolves.toEqual([]);
  } finally {
    if (saved === undefined) delete process.env.NODE_EXTRA_CA_CERTS;
    else process.env.NODE_EXTRA_CA_CERTS = saved;
  }
});

describe("through a corporate proxy", () => {
  let proxy: ConnectProxy;
  beforeEach(async () => (proxy = await startConnectProxy()));
  afterEach(async () => proxy.stop());

  test("tunnels to GitLab with CONNECT; the proxy relays the token only inside TLS", async () => {
    await expect(list({ caBundle: ca.caPem, proxy: { https: proxy.url } })).resolves.toEqual([]);
    expect(proxy.tunnels).toEqual([new URL(gitlab.url).host]);
    expect(proxy.relayed().length).toBeGreaterThan(0);
    expect(proxy.relayed()).not.toContain(TOKEN);
    expect(gitlab.requests).toHaveLength(1);
  });

  test("fails at once, naming the proxy, when nothing listens where gitlab.proxy points", async () => {
    const port = await closedPort();

    const error = (await list({ caBundle: ca.caPem, proxy: { https: `http://127.0.0.1:${port}` } }).catch((caught: unknown) => caught)) as GitLabApiError;

    expect(error).toBeInstanceOf(GitLabApiError);
    expect(error.kind).toBe("not-reached");
    expect(error.message).toBe(
      `cannot reach GitLab at ${gitlab.url}: the connection to the proxy at 127.0.0.1:${port} was refused: nothing listens there. Check gitlab.proxy in the model and that the proxy is running.`,
    );
    expect(gitlab.requests).toEqual([]);
  });

  test("goes direct to a host in no_proxy", async () => {
    await expect(list({ caBundle: ca.caPem, proxy: { https: proxy.url, noProxy: ["localhost", "127.0.0.1"] } })).resolves.toEqual([]);
    expect(proxy.tunnels).toEqual([]);
  });
});

test.each([
  ["gitlab.corp.example", "443", [".corp.example"], true],
  ["gitlab.corp.example", "443", ["corp.example"], true],
  ["gitlab.corp.example", "443", ["*.corp.example"], true],
  ["corp.example.evil.test", "443", ["corp.example"], false],
  ["notcorp.example", "443", ["corp.example"], false],
  ["gitlab.internal", "8443", ["gitlab.internal:443"], false],
  ["gitlab.internal", "443", ["gitlab.internal:443"], true],
  ["anything", "443", ["*"], true],
  ["gitlab.internal", "443", [], false],
  ["10.1.2.3", "443", ["10.0.0.0/8"], true],
  ["11.1.2.3", "443", ["10.0.0.0/8"], false],
  ["gitlab.internal", "443", ["10.0.0.0/8"], false],
] as const)("no_proxy: %s:%s with %j bypasses the proxy: %s", (host, port, noProxy, expected) => {
  expect(bypassesProxy(host, port, noProxy)).toBe(expected);
});

// NODE_EXTRA_CA_CERTS is read when node starts: that case runs the executable, the others go through
// the same command line and error handler in this process (runInProcess), as a process costs ~0.3 CPU-s.
describe("bin/onboard with a private CA", () => {
  /** bin/onboard --dry-run (reads only) against the HTTPS stand-in, with `gitlabSettings` in the model. */
  const dryRun = (gitlabSettings: Record<string, unknown>, env: NodeJS.ProcessEnv = {}, where: "a process" | "this process" = "this process") => {
    const root = mkdtempSync(join(tmpdir(), "onboard-ca-"));
    const model = modelWith("cell-1", (draft) => {
      Object.assign(draft.gitlab, { url: gitlab.url.replace("127.0.0.1", "localhost"), ...gitlabSettings });
      draft.secrets.store = "local";
      draft.secrets.local_dir = join(root, "secrets");
    });
    writeFileSync(join(root, "cell-1.yaml"), stringify(model));
    const args = ["--model", join(root, "cell-1.yaml"), "--dry-run"];
    const runEnv = { PATH: process.env.PATH, GITLAB_TOKEN: TOKEN, ONBOARD_RETRY_TIMEOUT: "2s", [STATE_DIR_ENV]: join(root, "state"), ...env };
    if (where === "this process") return runInProcess("onboard", args, { cwd: root, env: runEnv }).then(({ status, stdout, stderr }) => ({ code: status, output: stdout + stderr }));
    return new Promise<{ code: number; output: string }>((resolve) => {
      execFile(process.execPath, [join(__dirname, "..", "..", "bin", "onboard"), ...args], { cwd: root, env: runEnv }, (error, stdout, stderr) =>
        resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, output: stdout + stderr }),
      );
    });
  };

  test("reads GitLab over TLS with gitlab.ca_file", async () => {
    const run = await dryRun({ ca_file: ca.caFile });
    expect(run.output).not.toContain("TLS");
    expect(run.code).toBe(0);
    expect(gitlab.requests.length).toBeGreaterThan(0);
  });

  test("reads GitLab over TLS with NODE_EXTRA_CA_CERTS alone (Node's convention)", async () => {
    const run = await dryRun({}, { NODE_EXTRA_CA_CERTS: ca.caFile }, "a process");
    expect(run.code).toBe(0);
  });

  test("fails with one clear line and no stack trace without either", async () => {
    const run = await dryRun({});
    expect(run.code).toBe(1);
    expect(run.output).toContain(`cannot reach GitLab at ${gitlab.url.replace("127.0.0.1", "localhost")}`);
    expect(run.output).toContain("TLS verification failed");
    expect(run.output).not.toMatch(STACK_TRACE_LINE);
    expect(run.output).not.toContain(TOKEN);
    expect(gitlab.requests).toEqual([]);
  });
});
