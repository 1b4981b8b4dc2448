/**
 * What a manager's (and a worker's) boot needs for a self-managed GitLab behind a private
 * CA and a corporate proxy, as data: boot files (./boot-files.ts) for the startup payload to
 * write before the services start; config.toml refers to the CA file by MANAGER_CA_FILE.
 *
 * - CA: gitlab.ca_file's PEM, written to MANAGER_CA_FILE. config.toml's `tls-ca-file`
 *   points gitlab-runner at it, and gitlab-runner hands it to the job's helper container
 *   (CI_SERVER_TLS_CA_FILE), so clones verify GitLab too (gitlab-runner docs,
 *   "Self-signed certificates or custom Certification Authorities"). A CA certificate is
 *   public: it may travel in user data.
 * - Proxy: gitlab-runner reads HTTPS_PROXY/NO_PROXY from its service environment (systemd
 *   drop-in), dockerd from its own (its drop-in: "Configure the daemon to use a proxy",
 *   Docker docs), apt from Acquire::https::Proxy. Both spellings of each variable are set:
 *   Go reads either, curl and many tools only the lower-case one.
 * - The metadata server and this machine are never proxied: the cloud identity (cache URLs,
 *   secret store, fleeting plugin's credentials) comes from 169.254.169.254.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { RunnerModel } from "../model/schema";
import type { BootFile } from "./boot-files";

/** Where the boot writes gitlab.ca_file's PEM; config.toml's tls-ca-file names it. */
export const MANAGER_CA_FILE = "/etc/gitlab-runner/certs/gitlab-ca.crt";

/** Always reached directly: this machine and the clouds' metadata servers. */
export const ALWAYS_DIRECT = ["localhost", "127.0.0.1", "::1", "169.254.169.254", "metadata.google.internal"] as const;

export interface EgressSettings {
  /** The private CA bundle to write, or null when GitLab's certificate is publicly trusted. */
  readonly caFile: BootFile | null;
  /** Proxy environment (both spellings), in order; empty without gitlab.proxy. */
  readonly proxyEnvironment: ReadonlyArray<{ readonly name: string; readonly value: string }>;
  /** Files that make gitlab-runner, dockerd and apt use the proxy (managers: all three; workers: dockerd and apt). Empty without gitlab.proxy. */
  readonly proxyFiles: {
    readonly gitlabRunner: readonly BootFile[];
    readonly docker: readonly BootFile[];
    readonly apt: readonly BootFile[];
  };
}

/** The CA files read, per model and base directory: every manager and worker of a cell writes the same one. */
const caFiles = new WeakMap<RunnerModel, Map<string, BootFile | null>>();

function caBootFile(model: RunnerModel, baseDir: string): BootFile | null {
  const { ca_file: caFile } = model.gitlab;
  if (caFile === undefined) return null;
  const byDir = caFiles.get(model) ?? new Map<string, BootFile | null>();
  caFiles.set(model, byDir);
  if (!byDir.has(baseDir)) byDir.set(baseDir, { path: MANAGER_CA_FILE, content: normalisePem(readFileSync(resolve(baseDir, caFile), "utf8")), mode: "0644" });
  return byDir.get(baseDir) ?? null;
}

/** gitlab.proxy as environment variables (both spellings), in order; empty without a proxy. Reads no file. */
export function proxyEnvironment(model: RunnerModel): EgressSettings["proxyEnvironment"] {
  const { proxy } = model.gitlab;
  if (!proxy) return [];
  const https = proxy.https;
  const http = proxy.http ?? https;
  const noProxy = [...new Set([...ALWAYS_DIRECT, ...(model.network.cidr ? [model.network.cidr] : []), ...proxy.no_proxy])].join(",");
  const pairs: Array<[string, string | undefined]> = [
    ["HTTPS_PROXY", https],
    ["HTTP_PROXY", http],
    ["NO_PROXY", noProxy],
  ];
  return pairs.flatMap(([name, value]) => (value ? [{ name, value }, { name: name.toLowerCase(), value }] : []));
}

/** `baseDir` resolves a relative gitlab.ca_file. @default process.cwd() */
export function egressSettings(model: RunnerModel, baseDir = process.cwd()): EgressSettings {
  const { gitlab } = model;
  const caFile = caBootFile(model, baseDir);
  if (!gitlab.proxy) return { caFile, proxyEnvironment: [], proxyFiles: { gitlabRunner: [], docker: [], apt: [] } };

  const https = gitlab.proxy.https;
  const http = gitlab.proxy.http ?? https;
  const proxyVariables = proxyEnvironment(model);
  const dropIn = `[Service]\n${proxyVariables.map(({ name, value }) => `Environment="${name}=${value}"`).join("\n")}\n`;
  const aptLines = [...(https ? [`Acquire::https::Proxy "${https}";`] : []), ...(http ? [`Acquire::http::Proxy "${http}";`] : [])];
  return {
    caFile,
    proxyEnvironment: proxyVariables,
    proxyFiles: {
      gitlabRunner: [{ path: "/etc/systemd/system/gitlab-runner.service.d/proxy.conf", content: dropIn, mode: "0644" }],
      docker: [{ path: "/etc/systemd/system/docker.service.d/proxy.conf", content: dropIn, mode: "0644" }],
      apt: aptLines.length > 0 ? [{ path: "/etc/apt/apt.conf.d/95runner-fleet-proxy", content: `${aptLines.join("\n")}\n`, mode: "0644" }] : [],
    },
  };
}

/** "NAME=value" lines of the proxy environment (config.toml's `environment`), without reading the CA file. */
export function proxyEnvironmentLines(model: RunnerModel): string[] {
  return proxyEnvironment(model).map(({ name, value }) => `${name}=${value}`);
}

/** One trailing newline, Unix line ends: the file reads the same whatever editor saved it. */
function normalisePem(text: string): string {
  return `${text.replace(/\r\n/g, "\n").trim()}\n`;
}
