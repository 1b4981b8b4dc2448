#!/usr/bin/env bash
# Builds the Debian bookworm root file system the system tests boot with systemd-nspawn
# (test/system/): minbase plus systemd as PID 1, dbus, curl and the few tools the stubs use.
#
#   sudo tools/setup/system-rootfs.sh
#
# Root only (mmdebstrap into a directory and systemd-nspawn both need it). Installs the Debian
# packages systemd-container and mmdebstrap when missing. Idempotent: the rootfs is rebuilt only
# when the package list, suite or mirror below changes (the stamp file records them). Needs only
# the Debian mirror the host's apt already uses, never GitHub.
set -euo pipefail

if [[ $EUID -ne 0 ]]; then
  echo "system-rootfs: must run as root (mmdebstrap and systemd-nspawn need it): sudo $0" >&2
  exit 1
fi

readonly REPO_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
readonly CACHE_DIR="${REPO_ROOT}/.cache"
readonly ROOTFS="${CACHE_DIR}/system-rootfs"
# Inside the rootfs, so the stamp and the tree it describes are renamed into place together.
readonly STAMP_NAME=runner-fleet-rootfs.stamp
readonly SUITE=bookworm
# systemd 252 as PID 1; procps for ps/pgrep in the tests; python3, which the cloud images carry (cloud-init
# is Python) and the worker boot merges daemon.json with; python3-jmespath, the JMESPath library the AWS CLI
# applies --query with, for its stand-in; the rest is Essential in minbase
# (bash, coreutils, mawk, util-linux with logger).
readonly PACKAGES=(systemd systemd-sysv dbus curl ca-certificates procps python3 python3-jmespath)

say() { echo "system-rootfs: $*" >&2; }

# The Debian mirror of the host's own apt sources (deb822 or one-line format), so the build
# needs no network the host does not already use for apt.
host_mirror() {
  local uri
  uri=$(
    {
      cat /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '
        /^URIs:/ { uris = $2 }
        /^Suites:/ { for (i = 2; i <= NF; i++) if ($i == "'"$SUITE"'") print uris }'
      cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
        awk '$1 == "deb" && $3 == "'"$SUITE"'" { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { print $i; break } }'
    } | grep -v -e security -e '^$' | head -n 1
  ) || true
  printf '%s\n' "${uri:-http://deb.debian.org/debian}"
}

ensure_host_packages() {
  local missing=()
  command -v systemd-nspawn >/dev/null 2>&1 || missing+=(systemd-container)
  command -v mmdebstrap >/dev/null 2>&1 || missing+=(mmdebstrap)
  ((${#missing[@]} == 0)) && return 0
  say "installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null ||
    { apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null; }
}

main() {
  local mirror wanted building started
  ensure_host_packages
  mirror=$(host_mirror)
  wanted=$(printf 'suite=%s\nmirror=%s\npackages=%s\n' "$SUITE" "$mirror" "${PACKAGES[*]}")
  if [[ -f ${ROOTFS}/${STAMP_NAME} && $(<"${ROOTFS}/${STAMP_NAME}") == "$wanted" ]]; then
    say "up to date: ${ROOTFS}"
    return 0
  fi
  install -d -m 0755 "$CACHE_DIR"
  building="${ROOTFS}.building.$$"
  trap 'rm -rf "$building"' EXIT
  started=$SECONDS
  say "building ${SUITE} (${PACKAGES[*]}) from ${mirror} into ${ROOTFS}"
  # --customize-hook: an empty machine-id lets nspawn give each boot its own; the first-boot
  # wizard would wait for a console.
  mmdebstrap --quiet --mode=root --variant=minbase --include="$(
    IFS=,
    echo "${PACKAGES[*]}"
  )" \
    --customize-hook='truncate -s 0 "$1/etc/machine-id"' \
    --customize-hook='systemctl --root="$1" mask systemd-firstboot.service getty@.service console-getty.service systemd-logind.service >/dev/null 2>&1 || true' \
    "$SUITE" "$building" "$mirror"
  printf '%s\n' "$wanted" >"${building}/${STAMP_NAME}"
  rm -rf "$ROOTFS"
  mv "$building" "$ROOTFS"
  trap - EXIT
  say "built ${ROOTFS} in $((SECONDS - started))s ($(du -sh "$ROOTFS" | cut -f1))"
}

main "$@"
