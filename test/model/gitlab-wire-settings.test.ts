/**
 * The gitlab: settings that decide where the tokens travel (lib/model/gitlab-wire-checks.ts,
 * lib/model/gitlab-url-policy.ts): plain http only on this machine or with the loudly named
 * opt-in, which then warns; a CA bundle that exists; a proxy without credentials.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { insecureUrlProblem, isLoopbackHost } from "../../lib/model/gitlab-url-policy";
import { formatIssue, ModelValidationError } from "../../lib/model/issues";
import { parseModel } from "../../lib/model/load";
import { BASE_MODEL, withLine } from "./invalid-cases";

const withGitLab = (lines: string) => withLine(4, lines);
const problems = (text: string): string[] => {
  try {
    parseModel(text, "cell-9.yaml");
    return [];
  } catch (error) {
    if (!(error instanceof ModelValidationError)) throw error;
    return error.issues.map(formatIssue);
  }
};

test.each(["localhost", "gitlab.localhost", "127.0.0.1", "127.8.9.10", "[::1]"])("plain http is accepted on the loopback host %s", (host) => {
  expect(insecureUrlProblem(`http://${host}:8080`, false)).toBeUndefined();
});

test.each(["gitlab.example.com", "10.0.0.5", "[fd00::1]", "127.0.0.1.nip.io", "localhost.example.com"])("fails when plain http names %s, a host off this machine", (host) => {
  expect(isLoopbackHost(new URL(`http://${host}`).hostname)).toBe(false);
  expect(insecureUrlProblem(`http://${host}`, false)).toContain("clear text");
});

test("fails when gitlab.url is plain http on another host, pointing at the url's line:col", () => {
  expect(problems(withGitLab("  url: http://gitlab.internal"))).toEqual([
    'cell-9.yaml:4:8: gitlab.url: expected an https:// URL: plain http:// carries the token in clear text, so it is accepted only for this machine (localhost, 127.0.0.1, ::1) or with gitlab.allow_insecure_http_token_in_clear_text: true, received "http://gitlab.internal"',
  ]);
});

test("fails when clone_url is plain http on another host: jobs would clone with their token in clear text", () => {
  expect(problems(withGitLab("  url: https://gitlab.internal\n  clone_url: http://git.internal"))[0]).toMatch(/^cell-9\.yaml:5:14: gitlab\.clone_url: expected an https:\/\/ URL/);
});

test("the opt-in accepts plain http, and says so as a warning on every load", () => {
  const loaded = parseModel(withGitLab("  url: http://gitlab.internal\n  allow_insecure_http_token_in_clear_text: true"), "cell-9.yaml");
  expect(loaded.model.gitlab.url).toBe("http://gitlab.internal");
  expect(loaded.warnings.map(formatIssue).filter((line) => line.includes("gitlab."))).toEqual([
    expect.stringMatching(/^cell-9\.yaml:5:44: warning: gitlab\.allow_insecure_http_token_in_clear_text: expected false \(WARNING: .*sent in clear text to http:\/\/gitlab\.internal/),
  ]);
});

test("the defaults: a 30s request timeout, no CA, no proxy, the insecure opt-in off", () => {
  const { gitlab } = parseModel(BASE_MODEL, "cell-9.yaml").model;
  expect(gitlab).toMatchObject({ request_timeout: "30s", allow_insecure_http_token_in_clear_text: false });
  expect(gitlab.ca_file).toBeUndefined();
  expect(gitlab.proxy).toBeUndefined();
});

test("a proxy with its no_proxy list and a CA file are read as written", () => {
  const dir = mkdtempSync(join(tmpdir(), "ca-"));
  const caFile = join(dir, "ca.pem");
  writeFileSync(caFile, "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n");
  const text = withGitLab(`  url: https://gitlab.internal\n  ca_file: ${caFile}\n  proxy:\n    https: http://proxy.corp:3128\n    no_proxy: [.corp.example, 10.0.0.0/8, "*.svc"]`);
  expect(parseModel(text, "cell-9.yaml").model.gitlab).toMatchObject({ ca_file: caFile, proxy: { https: "http://proxy.corp:3128", no_proxy: [".corp.example", "10.0.0.0/8", "*.svc"] } });
});

test("fails when ca_file is missing or holds no certificate", () => {
  const dir = mkdtempSync(join(tmpdir(), "ca-"));
  writeFileSync(join(dir, "key.pem"), "-----BEGIN PRIVATE KEY-----\nx\n-----END PRIVATE KEY-----\n");
  expect(problems(withGitLab(`  url: https://gitlab.internal\n  ca_file: ${join(dir, "none.pem")}`))).toEqual([
    `cell-9.yaml:5:12: gitlab.ca_file: expected a readable PEM file with at least one CERTIFICATE block, received ${join(dir, "none.pem")}: ENOENT`,
  ]);
  expect(problems(withGitLab(`  url: https://gitlab.internal\n  ca_file: ${join(dir, "key.pem")}`))[0]).toContain("holds no PEM certificate");
});
