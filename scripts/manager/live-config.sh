# shellcheck shell=bash
# config.toml read at run time (lib/render/live-config.ts): the stack stores each slot's rendered file, with
# a first line that carries its restart digest, in a Secret Manager secret (Google) or an SSM parameter (AWS).
# The boot reads it before it writes config.toml; the config timer reads it again and applies a change:
# - same restart digest: only settings gitlab-runner reloads changed (concurrent, limit, policies, ...); the
#   file is rewritten under the running runner, which reloads it within 3 s (commands/multi.go, updateConfig);
# - another digest: the runner is stopped gracefully (SIGQUIT, running jobs finish, as for a replacement),
#   the file rewritten, and the runner started again on the same VM.
# shellcheck disable=SC2154,SC2153 # CONFIG_SOURCE and the other settings come from manager.env.

# Prints the stored content (digest line and config.toml) on stdout.
fetch_live_config() {
  local response
  case $CLOUD in
    google)
      response=$(google_api GET "$CONFIG_SECRET_VERSION_URL") || return 1
      [[ $response =~ \"data\"[[:space:]]*:[[:space:]]*\"([A-Za-z0-9+/=]+)\" ]] || return 1
      base64 -d <<<"${BASH_REMATCH[1]}"
      ;;
    aws)
      ensure_aws_cli || return 1
      aws ssm get-parameter --region "$AWS_REGION_NAME" --name "$CONFIG_PARAMETER_NAME" --query Parameter.Value --output text
      ;;
    *) return 1 ;;
  esac
}

# The stored content, checked: its first line is the restart digest, and it has [[runners]] entries.
read_stored_config() {
  STORED_CONFIG=$(fetch_live_config) || return 1
  if [[ ${STORED_CONFIG%%$'\n'*} != "${RESTART_DIGEST_PREFIX}"* || $STORED_CONFIG != *$'\n[[runners]]'* ]]; then
    log "the config.toml read from ${CONFIG_SOURCE} is not one runner-fleet rendered"
    return 1
  fi
}

# Writes the stored content as the template config_with_credentials fills in (mode 0600, atomically).
write_config_template() {
  install -d -m 0755 "$(dirname "$CONFIG_TEMPLATE_FILE")"
  (
    umask 077
    tmp=$(mktemp "${CONFIG_TEMPLATE_FILE}.XXXXXX")
    trap 'rm -f "$tmp"' EXIT
    printf '%s\n' "$STORED_CONFIG" >"$tmp"
    mv -f "$tmp" "$CONFIG_TEMPLATE_FILE"
  )
}

# Boot: the config must be there before gitlab-runner starts; a few tries, then the boot fails (reported).
read_live_config() {
  local attempt
  for attempt in 1 2 3 4 5 6; do
    if read_stored_config; then
      write_config_template
      log "read config.toml from ${CONFIG_SOURCE}"
      return 0
    fi
    log "could not read config.toml from ${CONFIG_SOURCE} (attempt ${attempt}/6)"
    sleep $((attempt * 5))
  done
  return 1
}

# Timer: applies a changed config.toml live, or with a graceful restart when a setting it does not reload changed.
refresh_live_config() {
  local current="" restart=no
  if ! read_stored_config; then
    log "could not read config.toml from ${CONFIG_SOURCE}; the running one stays"
    exit 1
  fi
  [[ -f $CONFIG_TEMPLATE_FILE ]] && current=$(<"$CONFIG_TEMPLATE_FILE")
  [[ $current == "$STORED_CONFIG" ]] && exit 0
  [[ ${current%%$'\n'*} != "${STORED_CONFIG%%$'\n'*}" ]] && restart=yes
  if ! fetch_runner_token || ! read_runner_id 3; then
    log "config.toml changed in ${CONFIG_SOURCE}, but the runner token could not be read; the next run tries again"
    exit 1
  fi
  write_config_template
  if [[ $restart == yes ]] && runner_running; then
    log "config.toml changed in ${CONFIG_SOURCE}, with settings gitlab-runner does not reload: restarting it gracefully on this VM"
    stop_runner_and_wait
    write_runner_config
    start_runner
    return 0
  fi
  log "config.toml changed in ${CONFIG_SOURCE}; gitlab-runner reloads it"
  write_runner_config
}
