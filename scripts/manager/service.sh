# shellcheck shell=bash
# gitlab-runner's systemd service and runner-fleet's own timers.
# shellcheck disable=SC2154,SC2153 # TIMERS and the other settings come from manager.env.

# The service's unit and drop-in (KillSignal=SIGQUIT, KillMode=mixed, TimeoutStopSec) are files of the
# startup payload; this only (re)starts it.
start_runner() {
  systemctl daemon-reload
  systemctl enable gitlab-runner
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

# The timers' units are files of the startup payload; they run once the runner does.
enable_timers() {
  local timers
  read -r -a timers <<<"$TIMERS"
  systemctl daemon-reload
  systemctl enable --now "${timers[@]}"
}
