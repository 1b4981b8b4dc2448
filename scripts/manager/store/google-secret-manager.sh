# shellcheck shell=bash
# Runner token from Google Secret Manager, read with the VM service account's access token (REST, no gcloud).
# shellcheck disable=SC2034 # RUNNER_TOKEN is read by runner-config.sh, which calls fetch_runner_token.
# shellcheck disable=SC2154 # SECRET_VERSION_URL comes from manager.env.

store_prepare() {
  :
}

# Both tokens stay in shell variables; curl reads the header from stdin, not argv.
fetch_runner_token() {
  local response
  response=$(google_api GET "$SECRET_VERSION_URL") || return 1
  [[ $response =~ \"data\"[[:space:]]*:[[:space:]]*\"([A-Za-z0-9+/=]+)\" ]] || return 1
  RUNNER_TOKEN=$(base64 -d <<<"${BASH_REMATCH[1]}") || return 1
  check_runner_token
}
