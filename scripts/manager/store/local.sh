# shellcheck shell=bash
# No cloud secret store: an operator copies the token to the VM (root, mode 0600).
# shellcheck disable=SC2034 # RUNNER_TOKEN is read by runner-config.sh, which calls fetch_runner_token.

readonly LOCAL_TOKEN_FILE="${ROOT}/etc/gitlab-runner/runner-token"

store_prepare() {
  install -d -m 0700 "$(dirname "$LOCAL_TOKEN_FILE")"
  log "waiting for the runner token in ${LOCAL_TOKEN_FILE} (root, mode 0600); copy it there to finish the setup"
}

fetch_runner_token() {
  [[ -s $LOCAL_TOKEN_FILE ]] || return 1
  chmod 0600 "$LOCAL_TOKEN_FILE"
  RUNNER_TOKEN=$(<"$LOCAL_TOKEN_FILE")
  check_runner_token
}
