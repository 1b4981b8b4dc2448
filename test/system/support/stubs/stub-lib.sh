# Shared by the system-test stubs (sourced). Every stub records each call, and each signal it
# receives, as one line of $STUB_STATE/calls.log, which the test reads from the host:
#   <epoch ms> TAB <tool> TAB <pid> TAB <event> [TAB <argument>]...
# Backslash, tab and newline in arguments are escaped as \\, \t and \n. Lines are short single
# appends (O_APPEND), so concurrent stubs do not interleave them.
STUB_STATE=${STUB_STATE:-/var/lib/stub}
STUB_DIR=${STUB_DIR:-/usr/local/lib/runner-fleet-stubs}

stub_now_ms() {
  local now=${EPOCHREALTIME/./}
  printf '%s' "${now:0:13}"
}

stub_escape() {
  local text=$1
  text=${text//\\/\\\\}
  text=${text//$'\t'/\\t}
  text=${text//$'\n'/\\n}
  printf '%s' "$text"
}

# stub_log TOOL EVENT [ARGUMENT]...
stub_log() {
  local line argument
  line="$(stub_now_ms)"$'\t'"$1"$'\t'"${BASHPID}"$'\t'"$2"
  shift 2
  for argument in "$@"; do
    line+=$'\t'"$(stub_escape "$argument")"
  done
  printf '%s\n' "$line" >>"${STUB_STATE}/calls.log"
}

# Sleeps in a way a signal interrupts at once (bash runs traps only between commands).
stub_pause() {
  sleep "$1" &
  wait $! 2>/dev/null || true
}
