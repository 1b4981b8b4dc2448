/**
 * Plain words for the TLS failures Node reports (OpenSSL's X509_V_ERR_* names, as
 * node:tls sets them on error.code, and Node's own ERR_TLS_*), with what to do about them.
 */

const TLS_REASONS: Readonly<Record<string, string>> = {
  SELF_SIGNED_CERT_IN_CHAIN: "its certificate chain ends in a CA this machine does not trust",
  DEPTH_ZERO_SELF_SIGNED_CERT: "its certificate is self-signed",
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: "its certificate is signed by a CA this machine does not trust",
  UNABLE_TO_GET_ISSUER_CERT: "the issuer of its certificate is unknown here",
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: "the issuer of its certificate is unknown here",
  CERT_HAS_EXPIRED: "its certificate has expired",
  CERT_NOT_YET_VALID: "its certificate is not valid yet",
  CERT_REVOKED: "its certificate is revoked",
  ERR_TLS_CERT_ALTNAME_INVALID: "its certificate is for another host name",
  ERR_SSL_WRONG_VERSION_NUMBER: "it does not speak TLS on that port (is it plain http?)",
};

/** True for the codes above and any other TLS/SSL code. */
export function isTlsFailure(code: string): boolean {
  return code in TLS_REASONS || /^ERR_(SSL|TLS)_|CERT/.test(code);
}

/** "its certificate is self-signed (DEPTH_ZERO_SELF_SIGNED_CERT). If GitLab uses a private CA, ..." */
export function describeTlsFailure(code: string): string {
  const reason = TLS_REASONS[code] ?? "the TLS handshake failed";
  const hint = /SELF_SIGNED|UNABLE_TO|ISSUER/.test(code)
    ? " If GitLab uses a private CA, set gitlab.ca_file in the model to its PEM bundle (or NODE_EXTRA_CA_CERTS)."
    : "";
  return `TLS verification failed: ${reason} (${code}).${hint}`;
}
