# shellcheck shell=bash
# gitlab-runner's systemd service and runner-fleet's own timers.
# shellcheck disable=SC2154,SC2153 # TIMERS and the other settings come from manager.env.

# Where the service records, as it starts, a digest of what it starts with (the drop-in's ExecStartPre runs
# `runner-fleet-manager record-start`). On /run: a reboot clears it along with the process it describes.
readonly RUNNER_STARTED_WITH_FILE="${RUN_DIR}/runner-started-with"

# What a running gitlab-runner does not take on without a restart, as one digest: config.toml, the unit as
# systemd has it (the package's file and runner-fleet's drop-in, `systemctl cat`) and the installed binary.
runner_inputs_digest() {
  local binary sum
  binary=$(command -v gitlab-runner 2>/dev/null) || binary=""
  sum=$({
    cat "$RUNNER_CONFIG_FILE" 2>/dev/null
    systemctl cat gitlab-runner 2>/dev/null
    [[ -z $binary ]] || stat -L -c '%s %Y %i' "$binary"
  } | sha256sum)
  printf '%s\n' "${sum%% *}"
}

# ExecStartPre of gitlab-runner.service: every start (at boot by systemd, by start_runner, by Restart=)
# records what it started with. Mode 0600: config.toml holds the token.
record_runner_start() {
  install -d -m 0755 "$RUN_DIR"
  (
    umask 077
    runner_inputs_digest >"$RUNNER_STARTED_WITH_FILE"
  )
}

# The service's unit and drop-in (KillSignal=SIGQUIT, KillMode=mixed, TimeoutStopSec) are files of the
# startup payload; this starts it, and restarts it only when what it runs with changed. After a reboot the
# enabled unit has already started (multi-user.target wants it) and may have taken jobs by the time the boot
# gets here: a restart would send it SIGQUIT, and it would take no new job until those finished (up to
# maximum_timeout) while its health checks stay green.
start_runner() {
  local started_with=""
  systemctl daemon-reload
  systemctl enable gitlab-runner
  if [[ $(runner_state) == active ]]; then
    [[ -r $RUNNER_STARTED_WITH_FILE ]] && started_with=$(<"$RUNNER_STARTED_WITH_FILE")
    if [[ $started_with == "$(runner_inputs_digest)" ]]; then
      log "gitlab-runner already runs with this configuration; not restarting it"
      return 0
    fi
    log "gitlab-runner runs with another configuration, unit or binary; restarting it"
  fi
  systemctl restart gitlab-runner
}

runner_state() {
  systemctl show --property=ActiveState --value gitlab-runner
}

# True while the service is up. `systemctl is-active` is not enough for a drain: it answers non-zero for a
# unit that is `deactivating`, i.e. still stopping with jobs running (systemctl(1): only active and
# reloading count as active).
runner_running() {
  local state
  state=$(runner_state)
  [[ $state != inactive && $state != failed ]]
}

# Hooks a cloud's half (cloud/*.sh, sourced after this file) may define; here they do nothing.
# cloud_boot_started: right after the early timers. cloud_wait_for_slot: before config.toml gets the credentials.
cloud_boot_started() { :; }
cloud_wait_for_slot() { :; }

# Stops gitlab-runner gracefully and returns once it is `inactive` or `failed`, however long its running jobs
# take (up to TimeoutStopSec). Blocking `systemctl stop` waits for the stop job itself.
stop_runner_and_wait() {
  systemctl stop gitlab-runner || log "systemctl stop gitlab-runner failed; waiting for the unit to stop"
  while runner_running; do
    sleep 5
  done
}

# The monitoring agent, retried; a manager without it still runs jobs, so a failed download or start is
# reported, not fatal. A download that does not verify (UNTRUSTED_DOWNLOAD) fails the boot at once.
# setup_monitoring runs in an `||` list, where bash ignores `set -e`: each of its steps returns on
# failure explicitly.
start_monitoring() {
  local attempt status
  for ((attempt = 1; attempt <= MONITORING_ATTEMPTS; attempt++)); do
    status=0
    setup_monitoring || status=$?
    if ((status == 0)); then
      return 0
    fi
    # A download that is not what it should be is no outage to wait out: the boot fails, and is reported.
    if ((status == UNTRUSTED_DOWNLOAD)); then
      log "the monitoring agent's download did not verify: not running it"
      return "$UNTRUSTED_DOWNLOAD"
    fi
    log "setting up the monitoring agent failed (attempt ${attempt}/${MONITORING_ATTEMPTS})"
    if ((attempt < MONITORING_ATTEMPTS)); then
      sleep $((attempt * 15))
    fi
  done
  log "WARNING: no monitoring agent; gitlab-runner runs without it (no metrics or logs from this manager until the next boot)"
}

# Timers that must run from the start of the boot (EARLY_TIMERS; AWS: the drain, so that a boot that fails
# still completes its termination lifecycle action, and the heartbeat). Enabled before anything can fail.
enable_early_timers() {
  local timers
  read -r -a timers <<<"${EARLY_TIMERS:-}"
  ((${#timers[@]} > 0)) || return 0
  systemctl daemon-reload
  systemctl enable --now "${timers[@]}"
}

# The other timers' units are files of the startup payload too; they run once the runner does.
enable_timers() {
  local timers
  read -r -a timers <<<"$TIMERS"
  systemctl daemon-reload
  systemctl enable --now "${timers[@]}"
}
