# shellcheck shell=bash
# The runner's credentials in config.toml: the token from the secret store and the runner ID GitLab gives
# for it, written into the rendered template; and the timer that picks up a rotated token.
# shellcheck disable=SC2154,SC2153 # TOKEN_SOURCE, RUNNER_ID_LINE and the other settings come from manager.env.

# Where the runner ID of the current token is kept (with the token's digest, never the token).
readonly RUNNER_ID_FILE="${STATE_DIR}/runner-id"

# Accepts the token only if it is safe to place inside a TOML string.
check_runner_token() {
  RUNNER_TOKEN=${RUNNER_TOKEN//[[:space:]]/}
  if [[ ! $RUNNER_TOKEN =~ ^[A-Za-z0-9._-]+$ ]]; then
    log "the value read from ${TOKEN_SOURCE} is empty or not a runner token"
    return 1
  fi
}

# Waits for the token, which may be stored after the VM boots, up to CREDENTIALS_WAIT_SECONDS: a token that
# never comes (not stored, no access) fails the boot (boot_failed), which reports it and releases the slot.
read_runner_token() {
  local delay=5 started=$SECONDS bound
  bound=$(credentials_wait_seconds)
  store_prepare
  until fetch_runner_token; do
    if ((SECONDS - started >= bound)); then
      log "no runner token from ${TOKEN_SOURCE} after ${bound}s; giving up"
      return 1
    fi
    log "no runner token from ${TOKEN_SOURCE} yet; retrying in ${delay}s"
    bounded_sleep "$delay" "$((bound - (SECONDS - started)))"
    delay=$((delay * 2 > 60 ? 60 : delay * 2))
  done
  log "read the runner token from ${TOKEN_SOURCE}"
}

# CREDENTIALS_WAIT_SECONDS, or RUNNER_FLEET_CREDENTIALS_WAIT_SECONDS (a test hook; unset on real VMs).
credentials_wait_seconds() {
  printf '%s\n' "${RUNNER_FLEET_CREDENTIALS_WAIT_SECONDS:-$CREDENTIALS_WAIT_SECONDS}"
}

token_digest() {
  local sum
  sum=$(printf '%s' "$RUNNER_TOKEN" | sha256sum)
  printf '%s\n' "${sum%% *}"
}

# The runner's ID, from GitLab: POST /runners/verify answers {id, token, token_expires_at} for a valid
# runner token. gitlab-runner 19.2+ keys its taskscaler by URL and runner ID (gitlab-runner issue 39380):
# with the ID in config.toml, a rotated token keeps the same taskscaler and its workers.
# The token goes to curl on stdin, and the answer (which echoes it) never reaches a log.
lookup_runner_id() {
  local system_id="" response body
  [[ -s ${RUNNER_CONFIG_DIR}/.runner_system_id ]] && system_id=$(<"${RUNNER_CONFIG_DIR}/.runner_system_id")
  body="token=${RUNNER_TOKEN}${system_id:+&system_id=${system_id}}"
  # gitlab.ca_file: GitLab's private CA, written by the payload next to config.toml (tls-ca-file).
  response=$(printf '%s' "$body" | curl -fsS --max-time 30 ${GITLAB_CA_FILE:+--cacert "${ROOT}${GITLAB_CA_FILE}"} --data @- "${GITLAB_URL}/api/v4/runners/verify") || return 1
  [[ $response =~ \"id\"[[:space:]]*:[[:space:]]*([0-9]+) ]] || return 1
  RUNNER_ID=${BASH_REMATCH[1]}
}

# read_runner_id [ATTEMPTS]: RUNNER_ID of the current RUNNER_TOKEN, from the cache while the token is the
# same, else from GitLab. The boot waits up to CREDENTIALS_WAIT_SECONDS (GitLab out of reach, a refused token,
# a wrong CA never hold it for good: boot_failed reports it); a timer gives up after ATTEMPTS, so it never
# holds its unit for good either (the next run tries again).
read_runner_id() {
  local digest cached_digest cached_id delay=5 attempts=${1:-0} attempt=0 started=$SECONDS bound=0
  ((attempts > 0)) || bound=$(credentials_wait_seconds)
  digest=$(token_digest)
  if [[ -s $RUNNER_ID_FILE ]]; then
    read -r cached_digest cached_id <"$RUNNER_ID_FILE" || true
    if [[ $cached_digest == "$digest" && $cached_id =~ ^[0-9]+$ ]]; then
      RUNNER_ID=$cached_id
      return 0
    fi
  fi
  until lookup_runner_id; do
    attempt=$((attempt + 1))
    if ((attempts > 0 && attempt >= attempts)); then
      log "GitLab did not confirm the runner token from ${TOKEN_SOURCE} after ${attempt} attempts"
      return 1
    fi
    if ((attempts == 0 && SECONDS - started >= bound)); then
      log "GitLab did not confirm the runner token from ${TOKEN_SOURCE} within ${bound}s (${attempt} attempts); giving up"
      return 1
    fi
    log "GitLab did not confirm the runner token from ${TOKEN_SOURCE} yet; retrying in ${delay}s"
    if ((attempts > 0)); then sleep "$delay"; else bounded_sleep "$delay" "$((bound - (SECONDS - started)))"; fi
    delay=$((delay * 2 > 60 ? 60 : delay * 2))
  done
  install -d -m 0700 "$STATE_DIR"
  printf '%s %s\n' "$digest" "$RUNNER_ID" >"$RUNNER_ID_FILE"
  log "runner ID ${RUNNER_ID}"
}

# config.toml with the credentials: only the whole token and ID lines of each [[runners]] entry are
# replaced, never text elsewhere, so a model value that contains a placeholder cannot receive the token.
config_with_credentials() {
  local line token_lines=0 id_lines=0 runner_entries=0
  # Runner tokens are URL-safe characters; anything else could break out of the TOML string.
  if [[ ! $RUNNER_TOKEN =~ ^[A-Za-z0-9._-]+$ || ! $RUNNER_ID =~ ^[0-9]+$ ]]; then
    log "the runner token from ${TOKEN_SOURCE} or its runner ID has characters they never have"
    return 1
  fi
  while IFS= read -r line; do
    if [[ $line == "$TOKEN_LINE" ]]; then
      printf '  token = "%s"\n' "$RUNNER_TOKEN"
      token_lines=$((token_lines + 1))
    elif [[ $line == "$RUNNER_ID_LINE" ]]; then
      printf '  id = %s\n' "$RUNNER_ID"
      id_lines=$((id_lines + 1))
    else
      [[ $line == "[[runners]]" ]] && runner_entries=$((runner_entries + 1))
      printf '%s\n' "$line"
    fi
  done <"$CONFIG_TEMPLATE_FILE"
  if ((token_lines == 0 || token_lines != runner_entries || id_lines != runner_entries)); then
    log "the rendered config.toml has ${token_lines} token and ${id_lines} ID line(s) for ${runner_entries} [[runners]] entr(ies)"
    return 1
  fi
}

# config.toml with the credentials, mode 0600, replaced atomically (no half-written file).
write_runner_config() {
  local config
  config=$(config_with_credentials) || return 1
  install -d -m 0700 "$RUNNER_CONFIG_DIR"
  (
    umask 077
    tmp=$(mktemp "${RUNNER_CONFIG_DIR}/.config.toml.XXXXXX")
    trap 'rm -f "$tmp"' EXIT
    printf '%s\n' "$config" >"$tmp"
    chmod 0600 "$tmp"
    mv -f "$tmp" "$RUNNER_CONFIG_FILE"
  )
  log "wrote ${RUNNER_CONFIG_FILE} (mode 0600)"
}

# Timer: picks up a token rotated in the store. gitlab-runner checks config.toml every 3 s and reloads it.
# ROTATION_MODE live (gitlab-runner 19.2+): the new token is written under the running runner; its taskscaler
# is keyed by URL and runner ID, so workers and running jobs stay.
# ROTATION_MODE drain (before 19.2): the taskscaler is keyed by the token (gitlab-runner issue 39380), so a
# live rewrite would shut the old one down with its workers and running jobs. The runner is stopped
# gracefully first (SIGQUIT: running jobs finish), then starts again with the new token. GitLab refuses the
# old token at once either way, so no new jobs start on this manager until it runs the new one.
refresh_token() {
  local current=""
  if ! fetch_runner_token; then
    log "could not read the runner token from ${TOKEN_SOURCE}; config.toml is unchanged"
    exit 1
  fi
  if ! read_runner_id 3; then
    log "config.toml is unchanged; the next run tries again"
    exit 1
  fi
  [[ -f $RUNNER_CONFIG_FILE ]] && current=$(<"$RUNNER_CONFIG_FILE")
  if [[ $current == "$(config_with_credentials)" ]]; then
    exit 0
  fi
  if [[ $ROTATION_MODE == drain ]] && runner_running; then
    log "the runner token in ${TOKEN_SOURCE} changed; gitlab-runner ${RUNNER_VERSION} would drop its workers on a live change: draining it first"
    stop_runner_and_wait
    write_runner_config
    start_runner
    return 0
  fi
  log "the runner token in ${TOKEN_SOURCE} changed; rewriting config.toml"
  write_runner_config
}
