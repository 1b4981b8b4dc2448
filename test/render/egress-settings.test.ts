/**
 * A private CA and a corporate proxy reaching the managers: tls-ca-file, clone_url and the
 * job environment in the rendered config.toml (keys checked against gitlab-runner's own
 * list, ./fixtures/gitlab-runner-config-keys.txt), and the boot files of ../../lib/render/egress-settings.ts.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "smol-toml";
import type { RunnerModel } from "../../lib/model/schema";
import { renderConfigToml } from "../../lib/render/config-toml";
import { egressSettings, MANAGER_CA_FILE } from "../../lib/render/egress-settings";
import { modelWith } from "../support/models";
import { loadKnownRunnerConfigKeys, unknownKeyPaths } from "./support/runner-config-keys";

const PEM = "-----BEGIN CERTIFICATE-----\r\nMIIBtest\r\n-----END CERTIFICATE-----\r\n\r\n";
const caDir = mkdtempSync(join(tmpdir(), "egress-"));
writeFileSync(join(caDir, "gitlab-ca.pem"), PEM);

const corporate = (change: (model: RunnerModel) => void = () => {}) =>
  modelWith("cell-1", (model) => {
    model.gitlab.ca_file = "gitlab-ca.pem";
    model.gitlab.clone_url = "https://git.internal.example";
    model.gitlab.proxy = { https: "http://proxy.corp:3128", no_proxy: [".corp.example"] };
    change(model);
  });
const firstRunner = (model: RunnerModel) => (parse(renderConfigToml(model, model.shards[0], 0)) as any).runners[0];

test("config.toml points gitlab-runner at the CA file the boot writes, and carries clone_url and the proxy for jobs", () => {
  const model = corporate();
  const runner = firstRunner(model);
  expect(runner["tls-ca-file"]).toBe(MANAGER_CA_FILE);
  expect(runner.clone_url).toBe("https://git.internal.example");
  expect(runner.environment).toEqual(expect.arrayContaining(["HTTPS_PROXY=http://proxy.corp:3128", "https_proxy=http://proxy.corp:3128", expect.stringMatching(/^NO_PROXY=.*169\.254\.169\.254.*\.corp\.example$/)]));
  const config = parse(renderConfigToml(model, model.shards[0], 0));
  expect(unknownKeyPaths(config, loadKnownRunnerConfigKeys())).toEqual([]);
});

test("config.toml has none of them when the model sets none", () => {
  const runner = firstRunner(modelWith("cell-1", () => {}));
  expect(runner).not.toHaveProperty("tls-ca-file");
  expect(runner).not.toHaveProperty("clone_url");
  expect(runner).not.toHaveProperty("environment");
});

test("the boot data: the CA file's PEM (normalised), the proxy environment and the drop-ins", () => {
  const settings = egressSettings(corporate(), caDir);
  expect(settings.caFile).toEqual({ path: MANAGER_CA_FILE, content: "-----BEGIN CERTIFICATE-----\nMIIBtest\n-----END CERTIFICATE-----\n", mode: "0644" });
  const noProxy = "localhost,127.0.0.1,::1,169.254.169.254,metadata.google.internal,10.20.0.0/20,.corp.example";
  expect(settings.proxyEnvironment).toEqual([
    { name: "HTTPS_PROXY", value: "http://proxy.corp:3128" },
    { name: "https_proxy", value: "http://proxy.corp:3128" },
    { name: "HTTP_PROXY", value: "http://proxy.corp:3128" },
    { name: "http_proxy", value: "http://proxy.corp:3128" },
    { name: "NO_PROXY", value: noProxy },
    { name: "no_proxy", value: noProxy },
  ]);
  const dropIn = settings.proxyFiles.gitlabRunner[0];
  expect(dropIn.path).toBe("/etc/systemd/system/gitlab-runner.service.d/proxy.conf");
  expect(dropIn.content.split("\n")[0]).toBe("[Service]");
  expect(dropIn.content).toContain(`Environment="NO_PROXY=${noProxy}"`);
  expect(settings.proxyFiles.docker[0]).toEqual({ ...dropIn, path: "/etc/systemd/system/docker.service.d/proxy.conf" });
  expect(settings.proxyFiles.apt[0].content).toBe('Acquire::https::Proxy "http://proxy.corp:3128";\nAcquire::http::Proxy "http://proxy.corp:3128";\n');
});

test("without a CA or a proxy there is nothing to write", () => {
  expect(egressSettings(modelWith("cell-1", () => {}), caDir)).toEqual({ caFile: null, proxyEnvironment: [], proxyFiles: { gitlabRunner: [], docker: [], apt: [] } });
});

test("reads the CA file once per model and base folder: every manager and worker of the cell writes the same bytes", () => {
  const dir = mkdtempSync(join(tmpdir(), "egress-once-"));
  writeFileSync(join(dir, "gitlab-ca.pem"), PEM);
  const model = corporate();
  const first = egressSettings(model, dir).caFile;

  writeFileSync(join(dir, "gitlab-ca.pem"), "-----BEGIN CERTIFICATE-----\nMIIBchanged\n-----END CERTIFICATE-----\n");

  expect(egressSettings(model, dir).caFile).toEqual(first);
  expect(egressSettings(corporate(), dir).caFile?.content).toContain("MIIBchanged");
});
