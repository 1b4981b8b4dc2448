#!/usr/bin/env bash
# Installs the infrastructure engine (terraform or OpenTofu) at a pinned version,
# verified before it is ever executed:
# - with RUNNER_ENGINE_SHA256 set: the archive must have exactly that digest;
# - otherwise: the release's SHA256SUMS must carry a valid signature by the
#   vendor's release key (its fingerprint is pinned below, not taken from the
#   download), and the archive must match its line in SHA256SUMS.
# Nothing unverified is installed; with neither a digest nor gpg the script fails.
#
# Variables:
#   RUNNER_ENGINE                terraform (default) or tofu
#   RUNNER_ENGINE_VERSION        version without "v" (default below per engine)
#   RUNNER_ENGINE_SHA256         optional exact digest of the linux zip for this machine's arch
#   RUNNER_ENGINE_GPG_FINGERPRINT  optional override of the pinned release key fingerprint
#   RUNNER_ENGINE_INSTALL_DIR    where the binary goes (default /usr/local/bin)
#   RUNNER_ENGINE_BASE_URL       optional mirror of the release directory (same file names)
set -euo pipefail

readonly TERRAFORM_DEFAULT_VERSION="1.11.4"
readonly TOFU_DEFAULT_VERSION="1.9.1"
# HashiCorp's release signing key (key id 72D7468F), https://www.hashicorp.com/security
readonly HASHICORP_FINGERPRINT="C874011F0AB405110D02105534365D9472D7468F"
# OpenTofu's release signing key, https://get.opentofu.org/opentofu.asc (check against opentofu.org docs when bumping)
readonly OPENTOFU_FINGERPRINT="E3E6E43D84CB852EADB0051D0C0AF313E5FD9F80"

engine="${RUNNER_ENGINE:-terraform}"
install_dir="${RUNNER_ENGINE_INSTALL_DIR:-/usr/local/bin}"
expected_sha256="${RUNNER_ENGINE_SHA256:-}"

fail() {
  echo "install-engine: $*" >&2
  exit 1
}

case "$(uname -m)" in
  x86_64 | amd64) arch="amd64" ;;
  aarch64 | arm64) arch="arm64" ;;
  *) fail "unsupported machine $(uname -m)" ;;
esac

case "$engine" in
  terraform)
    version="${RUNNER_ENGINE_VERSION:-$TERRAFORM_DEFAULT_VERSION}"
    base_url="${RUNNER_ENGINE_BASE_URL:-https://releases.hashicorp.com/terraform/${version}}"
    archive="terraform_${version}_linux_${arch}.zip"
    sums="terraform_${version}_SHA256SUMS"
    signature="${sums}.sig"
    key_url="https://www.hashicorp.com/.well-known/pgp-key.txt"
    fingerprint="${RUNNER_ENGINE_GPG_FINGERPRINT:-$HASHICORP_FINGERPRINT}"
    ;;
  tofu)
    version="${RUNNER_ENGINE_VERSION:-$TOFU_DEFAULT_VERSION}"
    base_url="${RUNNER_ENGINE_BASE_URL:-https://github.com/opentofu/opentofu/releases/download/v${version}}"
    archive="tofu_${version}_linux_${arch}.zip"
    sums="tofu_${version}_SHA256SUMS"
    signature="${sums}.gpgsig"
    key_url="https://get.opentofu.org/opentofu.asc"
    fingerprint="${RUNNER_ENGINE_GPG_FINGERPRINT:-$OPENTOFU_FINGERPRINT}"
    ;;
  *)
    echo "install-engine: RUNNER_ENGINE must be terraform or tofu, got \"${engine}\"" >&2
    exit 2
    ;;
esac

if [[ ! "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+(-[A-Za-z0-9.]+)?$ ]]; then
  echo "install-engine: RUNNER_ENGINE_VERSION must look like 1.11.4, got \"${version}\"" >&2
  exit 2
fi

if command -v "$engine" >/dev/null 2>&1 && "$engine" version 2>/dev/null | head -n 1 | grep -q "v${version}\$"; then
  echo "install-engine: ${engine} ${version} is already installed"
  exit 0
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

fetch() {
  curl --fail --silent --show-error --location --retry 3 --proto '=https' --tlsv1.2 --output "$2" "$1"
}

echo "install-engine: downloading ${archive}"
fetch "${base_url}/${archive}" "${work}/${archive}"

if [ -n "$expected_sha256" ]; then
  echo "${expected_sha256}  ${work}/${archive}" | sha256sum --check --status ||
    fail "${archive} does not have the pinned digest RUNNER_ENGINE_SHA256; refusing to install"
  echo "install-engine: ${archive} matches the pinned digest"
else
  command -v gpg >/dev/null 2>&1 || fail "gpg is needed to verify ${sums} (or pin RUNNER_ENGINE_SHA256)"
  fetch "${base_url}/${sums}" "${work}/${sums}"
  fetch "${base_url}/${signature}" "${work}/${signature}"
  fetch "$key_url" "${work}/release-key.asc"
  export GNUPGHOME="${work}/gnupg"
  mkdir -m 0700 "$GNUPGHOME"
  gpg --batch --quiet --import "${work}/release-key.asc" 2>/dev/null
  gpg --batch --with-colons --fingerprint 2>/dev/null | grep -q "^fpr:.*:${fingerprint}:\$" ||
    fail "the key at ${key_url} is not the pinned release key ${fingerprint}"
  gpg --batch --status-fd 1 --verify "${work}/${signature}" "${work}/${sums}" 2>/dev/null | grep -q "VALIDSIG ${fingerprint}" ||
    fail "${sums} is not signed by ${fingerprint}"
  line="$(grep " ${archive}\$" "${work}/${sums}")" || fail "${archive} is not listed in ${sums}"
  (cd "$work" && echo "$line" | sha256sum --check --status) || fail "${archive} does not match ${sums}"
  echo "install-engine: ${archive} matches ${sums}, signed by ${fingerprint}"
fi

mkdir -p "${work}/unpacked"
if command -v unzip >/dev/null 2>&1; then
  unzip -q -o "${work}/${archive}" "$engine" -d "${work}/unpacked"
elif command -v python3 >/dev/null 2>&1; then
  python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extract(sys.argv[2], sys.argv[3])' "${work}/${archive}" "$engine" "${work}/unpacked"
else
  fail "unzip (or python3) is needed to unpack ${archive}"
fi

mkdir -p "$install_dir"
install -m 0755 "${work}/unpacked/${engine}" "${install_dir}/${engine}"
"${install_dir}/${engine}" version | head -n 1
