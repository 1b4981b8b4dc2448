# Stand-in for `logger`, the command a boot runs most (every log line): plain sh, which starts in half the
# time bash takes. Logs the call as stub-command.sh logs every call (name and arguments separated by the
# unit separator, then the env the scripts must pass), and keeps the message (after `-t TAG --`) in
# $STUB_STATE/logger, where the tests look for leaked secrets.
{
  printf '%s\037' logger "$@"
  printf 'ENV:FLEETING_PLUGIN_PATH=%s\037ENV:HOME=%s\n' "${FLEETING_PLUGIN_PATH:-}" "${HOME:-}"
} >>"$STUB_LOG"
shift 3
printf '%s\n' "$*" >>"$STUB_STATE/logger"
