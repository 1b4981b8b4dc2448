# shellcheck shell=bash
# No cloud secret store: an operator copies the token to the VM (root, mode 0600).
# shellcheck disable=SC2034,SC2154 # RUNNER_TOKEN is read by runner-config.sh; LOCAL_TOKEN_FILE comes from manager.env.

readonly TOKEN_FILE="${ROOT}${LOCAL_TOKEN_FILE}"

store_prepare() {
  install -d -m 0700 "${TOKEN_FILE%/*}"
  log "waiting for the runner token in ${TOKEN_FILE} (root, mode 0600); copy it there to finish the setup"
}

fetch_runner_token() {
  [[ -s $TOKEN_FILE ]] || return 1
  chmod 0600 "$TOKEN_FILE"
  RUNNER_TOKEN=$(<"$TOKEN_FILE")
  check_runner_token
}
