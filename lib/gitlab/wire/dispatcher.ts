/**
 * The connection settings of the toolkit's own requests to GitLab: a private CA bundle and
 * a corporate proxy. We use undici (the HTTP client Node's fetch is built on) directly, so
 * that its Agent and ProxyAgent and its fetch come from one version.
 *
 * - CA: `gitlab.ca_file` (PEM) is trusted on top of Node's built-in roots and of
 *   NODE_EXTRA_CA_CERTS (Node's own convention, which keeps working with or without it).
 * - Proxy: `gitlab.proxy.https` for an https:// GitLab (`gitlab.proxy.http` for a plain
 *   http one), skipped when the host matches `gitlab.proxy.no_proxy`. The token crosses
 *   the proxy inside the TLS tunnel (CONNECT): the proxy sees the host name, not the token.
 *   Proxy variables of the environment are not read: where the admin token goes is decided
 *   by the model alone.
 */
import { readFileSync } from "node:fs";
import { rootCertificates } from "node:tls";
import ipaddr from "ipaddr.js";
import { Agent, ProxyAgent, type Dispatcher } from "undici";

export interface ProxySettings {
  /** Proxy URL for https:// GitLab, such as http://proxy.corp:3128. */
  readonly https?: string;
  /** Proxy URL for plain http:// GitLab. */
  readonly http?: string;
  /** Hosts reached directly: "gitlab.internal", ".corp.example" (any subdomain), "10.1.2.3", "*". */
  readonly noProxy?: readonly string[];
}

export interface ConnectionSettings {
  /** PEM text of extra CA certificates to trust. */
  readonly caBundle?: string;
  readonly proxy?: ProxySettings;
}

/** Whether `hostname` (and `port`) is in a no_proxy list, with curl's rules (suffix match, optional :port, "*") and CIDRs as Go's and Docker's. */
export function bypassesProxy(hostname: string, port: string, noProxy: readonly string[] = []): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, "");
  return noProxy.some((raw) => {
    const entry = raw.trim().toLowerCase();
    if (!entry) return false;
    if (entry === "*") return true;
    if (entry.includes("/")) return inCidr(host, entry);
    const match = /^(.*?)(?::(\d+))?$/.exec(entry.replace(/^\[|\]$/g, ""))!;
    const [name, entryPort] = [match[1].replace(/^\*?\./, ""), match[2]];
    if (entryPort && entryPort !== port) return false;
    return host === name || host.endsWith(`.${name}`);
  });
}

/** "10.0.0.0/8" holds 10.1.2.3; a name never matches a CIDR. */
function inCidr(host: string, cidr: string): boolean {
  if (!ipaddr.isValid(host) || !ipaddr.isValidCIDR(cidr)) return false;
  const address = ipaddr.process(host);
  const [range, bits] = ipaddr.parseCIDR(cidr);
  return address.kind() === range.kind() && address.match(range, bits);
}

/** The CA certificates to trust when a bundle is given: Node's roots, NODE_EXTRA_CA_CERTS, the bundle. */
function trustedCertificates(caBundle: string, env: NodeJS.ProcessEnv): string[] {
  const extraFile = env.NODE_EXTRA_CA_CERTS;
  // Node already read NODE_EXTRA_CA_CERTS at start; a `ca` option replaces the default store, so it is read again here.
  const extra = extraFile ? [readFileSync(extraFile, "utf8")] : [];
  return [...rootCertificates, ...extra, caBundle];
}

/** The proxy requests to `baseUrl` go through, or undefined when they go direct. */
export function proxyUrlFor(baseUrl: URL, settings: ConnectionSettings): string | undefined {
  const port = baseUrl.port || (baseUrl.protocol === "https:" ? "443" : "80");
  const proxyUrl = baseUrl.protocol === "https:" ? settings.proxy?.https : settings.proxy?.http;
  return proxyUrl && !bypassesProxy(baseUrl.hostname, port, settings.proxy?.noProxy) ? proxyUrl : undefined;
}

/** The dispatcher for requests to `baseUrl`, or undefined when the default one does (no CA bundle, no proxy on the way). */
export function createDispatcher(baseUrl: URL, settings: ConnectionSettings, env: NodeJS.ProcessEnv = process.env): Dispatcher | undefined {
  const tls = settings.caBundle ? { ca: trustedCertificates(settings.caBundle, env) } : undefined;
  const proxyUrl = proxyUrlFor(baseUrl, settings);
  if (proxyUrl) return new ProxyAgent({ uri: proxyUrl, ...(tls ? { requestTls: tls } : {}) });
  return tls ? new Agent({ connect: tls }) : undefined;
}
