# shellcheck shell=bash
# Shared by every part of the runner manager: logging, retries, package installs, settings, paths.
# shellcheck disable=SC2154,SC2034 # settings come from manager.env (load_settings); the paths are used by the parts that source this file.

readonly RUNNER_CONFIG_DIR="${ROOT}/etc/gitlab-runner"
readonly RUNNER_CONFIG_FILE="${RUNNER_CONFIG_DIR}/config.toml"
readonly RUNNER_FLEET_ETC="${ROOT}/etc/runner-fleet"
# config.toml as rendered from the model: placeholders where the boot fills in the token and runner ID.
readonly CONFIG_TEMPLATE_FILE="${RUNNER_FLEET_ETC}/config.toml.template"
readonly STATE_DIR="${ROOT}/var/lib/runner-fleet"
# On /run (tmpfs): gone at the next boot, like the failure it records.
readonly RUN_DIR="${ROOT}/run/runner-fleet"
readonly BOOT_FAILED_FILE="${RUN_DIR}/boot-failed"
export DEBIAN_FRONTEND=noninteractive

# The time comes from printf's own strftime (UTC for this one command), not from a `date` process per line.
log() {
  TZ=UTC0 printf '%(%Y-%m-%dT%H:%M:%SZ)T %s: %s\n' -1 "${LOG_TAG:-runner-fleet-manager}" "$*" >&2
  logger -t "${LOG_TAG:-runner-fleet-manager}" -- "$*" 2>/dev/null || true
}

# load_settings FILE: the manager's settings (KEY='value' lines, rendered from the model).
load_settings() {
  if [[ ! -r $1 ]]; then
    log "no settings file at $1: the startup payload writes it"
    exit 1
  fi
  # shellcheck source=/dev/null
  source "$1"
  export_proxy
}

# gitlab.proxy: every command the scripts run (curl, apt's downloads, the installers) goes through it; the
# metadata servers and this machine never do (EGRESS_NO_PROXY). Go and curl read either spelling.
export_proxy() {
  if [[ -n ${EGRESS_HTTPS_PROXY:-} ]]; then
    export HTTPS_PROXY=$EGRESS_HTTPS_PROXY https_proxy=$EGRESS_HTTPS_PROXY
    export HTTP_PROXY=${EGRESS_HTTP_PROXY:-} http_proxy=${EGRESS_HTTP_PROXY:-}
    export NO_PROXY=$EGRESS_NO_PROXY no_proxy=$EGRESS_NO_PROXY
  fi
}

# retry ATTEMPTS COMMAND...: runs COMMAND until it succeeds, with a growing pause.
retry() {
  local attempts=$1 attempt=1
  shift
  until "$@"; do
    if ((attempt >= attempts)); then
      log "giving up after ${attempts} attempts: $1"
      return 1
    fi
    log "attempt ${attempt}/${attempts} failed, retrying: $1"
    sleep $((attempt * 5))
    attempt=$((attempt + 1))
  done
}

# bounded_sleep SECONDS REMAINING: sleeps SECONDS, but no longer than REMAINING (and at least 1 s), so a
# bounded wait ends at its bound and not up to a whole back-off step later.
bounded_sleep() {
  local seconds=$1 remaining=$2
  ((remaining < seconds)) && seconds=$remaining
  ((seconds >= 1)) || seconds=1
  sleep "$seconds"
}

# Installed version of a Debian package, empty when it is not installed.
installed_version() {
  local line status version
  # shellcheck disable=SC2016 # ${Status} and ${Version} are dpkg-query fields, not shell variables.
  line=$(dpkg-query -W -f='${Status} ${Version}\n' "$1" 2>/dev/null) || true
  # "install ok installed 19.5.0-1": read by the shell, not by one more process.
  read -r _ _ status version <<<"$line"
  [[ $status != installed ]] || printf '%s\n' "$version"
}

APT_UPDATED=false
apt_install() {
  if [[ $APT_UPDATED == false ]]; then
    retry 5 apt-get -o DPkg::Lock::Timeout=600 update -q
    APT_UPDATED=true
  fi
  retry 5 apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends "$@"
}

# What the boot downloads is checked against keys pinned here, never run as a script: a download that is not
# what it should be returns UNTRUSTED_DOWNLOAD, which no retry and no "run without it" ever passes over.
readonly UNTRUSTED_DOWNLOAD=3

# key_fingerprints FILE: the fingerprints of the primary keys in an OpenPGP key file, one a line (gpg's
# --with-colons listing: the fpr record that follows each pub record, field 10).
key_fingerprints() {
  gpg --batch --show-keys --with-colons "$1" 2>/dev/null | awk -F: '$1 == "pub" { primary = 1; next } primary && $1 == "fpr" { print $10; primary = 0 }'
}

# install_pinned_key URL FINGERPRINT KEYRING: downloads an OpenPGP key and writes to KEYRING (a binary keyring,
# as apt's signed-by and gpgv take it) the key with FINGERPRINT alone. A file without that key is refused
# (UNTRUSTED_DOWNLOAD); other keys in the file are left out, so nothing but the pinned key is trusted.
install_pinned_key() {
  local url=$1 fingerprint=$2 keyring=$3 home status=0
  home=$(mktemp -d) || return 1
  retry 5 curl -fsSL -o "${home}/download" "$url" || status=1
  if ((status == 0)) && ! grep -qx "$fingerprint" < <(key_fingerprints "${home}/download"); then
    log "the key at ${url} is not ${fingerprint}: refusing it"
    status=$UNTRUSTED_DOWNLOAD
  fi
  if ((status == 0)); then
    install -d -m 0755 "${keyring%/*}"
    { gpg --batch --quiet --homedir "$home" --import "${home}/download" &&
      gpg --batch --homedir "$home" --export "$fingerprint" >"${keyring}.new" &&
      [[ -s ${keyring}.new ]] && chmod 0644 "${keyring}.new" && mv -f "${keyring}.new" "$keyring"; } || status=1
  fi
  # gpg may have started an agent for this home: stop it before its directory goes.
  gpgconf --homedir "$home" --kill all >/dev/null 2>&1 || true
  rm -rf "$home" "${keyring}.new"
  return "$status"
}

# put_apt_source FILE LINE: one apt source, written only when it differs (a later boot changes nothing, and a
# file an earlier version of the boot wrote is replaced).
put_apt_source() {
  if [[ -f $1 && "$(<"$1")" == "$2" ]]; then
    return 0
  fi
  install -d -m 0755 "${1%/*}"
  printf '%s\n' "$2" >"$1"
  APT_UPDATED=false
}

# The distribution's id, codename and version (ubuntu, noble, 24.04), into OS_ID, OS_CODENAME and OS_VERSION_ID.
read_os_release() {
  local line
  OS_ID="" OS_CODENAME="" OS_VERSION_ID=""
  while IFS= read -r line; do
    case "$line" in
      ID=*) OS_ID=${line#ID=} ;;
      VERSION_CODENAME=*) OS_CODENAME=${line#VERSION_CODENAME=} ;;
      VERSION_ID=*) OS_VERSION_ID=${line#VERSION_ID=} ;;
    esac
  done <"${ROOT}/etc/os-release"
  OS_ID=${OS_ID//\"/} OS_CODENAME=${OS_CODENAME//\"/} OS_VERSION_ID=${OS_VERSION_ID//\"/}
  [[ -n $OS_ID && -n $OS_CODENAME ]]
}

mark_boot_failed() {
  install -d -m 0755 "$RUN_DIR"
  TZ=UTC0 printf '%(%Y-%m-%dT%H:%M:%SZ)T\n' -1 >"$BOOT_FAILED_FILE"
}

# Only an earlier failed boot left the marker: a boot after a good one starts no rm.
clear_boot_failed() {
  [[ ! -e $BOOT_FAILED_FILE ]] || rm -f "$BOOT_FAILED_FILE"
}
