/**
 * A private CA and a server certificate it signed for 127.0.0.1 and localhost, made with
 * the openssl CLI at test time (nothing secret is checked in): the stand-in for a
 * self-managed GitLab behind an in-house CA.
 *
 * The keys are EC (P-256), which TLS and every client here take as they take RSA: an RSA key is
 * a search for primes, ~0.15 CPU-s each (four per file), an EC key is a random number.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface PrivateCa {
  readonly dir: string;
  /** The CA certificate, PEM: what gitlab.ca_file points at. */
  readonly caFile: string;
  readonly caPem: string;
  /** The server's key and certificate, PEM. */
  readonly key: string;
  readonly cert: string;
}

const EC_KEY = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1"];

export function makePrivateCa(): PrivateCa {
  const dir = mkdtempSync(join(tmpdir(), "private-ca-"));
  const at = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => execFileSync("openssl", args, { stdio: "pipe" });
  openssl("req", "-x509", ...EC_KEY, "-nodes", "-days", "2", "-subj", "/CN=Test Private CA", "-keyout", at("ca.key"), "-out", at("ca.pem"),
    "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign");
  openssl("req", ...EC_KEY, "-nodes", "-subj", "/CN=127.0.0.1", "-keyout", at("server.key"), "-out", at("server.csr"));
  writeFileSync(at("server.ext"), "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n");
  openssl("x509", "-req", "-in", at("server.csr"), "-CA", at("ca.pem"), "-CAkey", at("ca.key"), "-CAcreateserial", "-days", "2", "-extfile", at("server.ext"), "-out", at("server.pem"));
  return { dir, caFile: at("ca.pem"), caPem: readFileSync(at("ca.pem"), "utf8"), key: readFileSync(at("server.key"), "utf8"), cert: readFileSync(at("server.pem"), "utf8") };
}
