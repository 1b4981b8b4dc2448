# Shared by the system-test stubs (sourced). Every stub records each call, and each signal it
# receives, as one line of $STUB_STATE/calls.log, which the test reads from the host:
#   <epoch ms> TAB <tool> TAB <pid> TAB <event> [TAB <argument>]...
# Backslash, tab and newline in arguments are escaped as \\, \t and \n. Lines are short single
# appends (O_APPEND), so concurrent stubs do not interleave them.
STUB_STATE=${STUB_STATE:-/var/lib/stub}
STUB_DIR=${STUB_DIR:-/usr/local/lib/runner-fleet-stubs}

# What a stub does on the signal that stops its unit uses builtins only, never $(...): systemd sends
# the stop signal by re-reading the unit's cgroup.procs and signalling each process it has not
# signalled yet, "repeated until no further processes are added ... to properly handle forking
# processes" (cg_kill_items, src/basic/cgroup-util.c). A subshell forked in the stub's trap can be
# such a process and die of the signal: a call log line once lost the signal's name that way.

# Sets STUB_NOW_MS to the epoch milliseconds.
stub_now_ms() {
  local now=${EPOCHREALTIME/./}
  STUB_NOW_MS=${now:0:13}
}

# stub_log TOOL EVENT [ARGUMENT]...
stub_log() {
  local line argument text STUB_NOW_MS
  stub_now_ms
  line="${STUB_NOW_MS}"$'\t'"$1"$'\t'"${BASHPID}"$'\t'"$2"
  shift 2
  for argument in "$@"; do
    text=${argument//\\/\\\\}
    text=${text//$'\t'/\\t}
    text=${text//$'\n'/\\n}
    line+=$'\t'"$text"
  done
  printf '%s\n' "$line" >>"${STUB_STATE}/calls.log"
}

# Sleeps in a way a signal interrupts at once (bash runs traps only between commands).
stub_pause() {
  sleep "$1" &
  wait $! 2>/dev/null || true
}
