# Stand-in for every command a startup script must not really run in tests but logger (stub-logger.sh)
# (installed under many names; behaves by the name it was called as).
# Environment: STUB_LOG, STUB_STATE, STUB_DIR, RUNNER_FLEET_ROOT, and the fake
# STUB_RUNNER_TOKEN / STUB_ACCESS_TOKEN a test generated at run time.
# Its bookkeeping on the frequent calls uses bash builtins (no basename, touch, cat or awk): a script run
# makes dozens of stub calls, and a process spawned per line of bookkeeping was most of what they cost.
name=${0##*/}
# One line per call: name and arguments separated by the unit separator, plus the env the scripts must pass.
{
  printf '%s\x1f' "$name" "$@"
  printf 'ENV:FLEETING_PLUGIN_PATH=%s\x1fENV:HOME=%s\n' "${FLEETING_PLUGIN_PATH:-}" "${HOME:-}"
} >>"$STUB_LOG"
installed="$STUB_STATE/installed"
: >>"$installed"
mark_installed() { printf '%s %s\n' "$1" "$2" >>"$installed"; }
# count: the number kept in the state file $1, plus one, and written back.
count_up() {
  count=0
  [[ -f $STUB_STATE/$1 ]] && read -r count <"$STUB_STATE/$1"
  count=$((count + 1))
  echo "$count" >"$STUB_STATE/$1"
}

case "$name" in
  sleep)
    count_up sleeps
    if [[ ${STUB_SLEEP_HOOK:-} == place-token && $count == 1 ]]; then
      mkdir -p "$RUNNER_FLEET_ROOT/etc/gitlab-runner"
      printf '%s\n' "$STUB_RUNNER_TOKEN" >"$RUNNER_FLEET_ROOT/etc/gitlab-runner/runner-token"
    fi
    if [[ ${STUB_SLEEP_HOOK:-} == fail-after-2 && $count -gt 2 ]]; then exit 1; fi
    ;;
  dpkg-query)
    package=${!#}
    version=""
    while read -r listed listed_version; do [[ $listed == "$package" ]] && version=$listed_version; done <"$installed"
    [[ -n $version ]] || exit 1
    printf 'install ok installed %s\n' "$version"
    ;;
  dpkg)
    if [[ $1 == --print-architecture ]]; then
      echo "${STUB_ARCH:-amd64}"
      exit 0
    fi
    read -r version <"${!#}"
    mark_installed amazon-cloudwatch-agent "${version}-1"
    mkdir -p "$RUNNER_FLEET_ROOT/opt/aws/amazon-cloudwatch-agent/bin"
    ln -sf "$STUB_DIR/.command-stub" "$RUNNER_FLEET_ROOT/opt/aws/amazon-cloudwatch-agent/bin/amazon-cloudwatch-agent-ctl"
    ;;
  apt-get)
    if [[ " $* " == *" install "* ]]; then
      for arg in "$@"; do
        case "$arg" in
          -* | install | DPkg::*) ;;
          *=*) mark_installed "${arg%%=*}" "${arg#*=}" ;;
          docker.io)
            mark_installed docker.io 1.0
            ln -sf "$STUB_DIR/.command-stub" "$STUB_DIR/docker"
            ;;
          *) mark_installed "$arg" 1.0 ;;
        esac
      done
    fi
    ;;
  dnf)
    # Amazon Linux 2023: `dnf install -y -q docker` installs Docker (and its docker group).
    if [[ $1 == install && " $* " == *" docker "* ]]; then
      mark_installed docker 1.0
      ln -sf "$STUB_DIR/.command-stub" "$STUB_DIR/docker"
    fi
    if [[ $1 == install && " $* " == *" ec2-instance-connect "* ]]; then
      mark_installed ec2-instance-connect 1.0
      mkdir -p "$RUNNER_FLEET_ROOT/opt/aws/bin"
      : >"$RUNNER_FLEET_ROOT/opt/aws/bin/eic_run_authorized_keys"
    fi
    ;;
  gpg)
    # --show-keys --with-colons FILE: a pub and an fpr record per key the file names; --homedir H --import F
    # keeps F; --homedir H --export FPR writes a keyring of that key when F had it; --dearmor -o OUT IN copies.
    homedir="" output="" previous="" mode=""
    for arg in "$@"; do
      [[ $previous == --homedir ]] && homedir=$arg
      [[ $previous == -o ]] && output=$arg
      case "$arg" in --show-keys | --import | --export | --dearmor) mode=$arg ;; esac
      previous=$arg
    done
    case "$mode" in
      --show-keys)
        read -r _ fingerprints <"${!#}"
        for fingerprint in $fingerprints; do printf 'pub:-:4096:1:%s:1:::-:::scESC:\nfpr:::::::::%s:\n' "${fingerprint: -16}" "$fingerprint"; done
        ;;
      --import) cp "${!#}" "$homedir/imported" ;;
      --export)
        read -r _ fingerprints <"$homedir/imported"
        [[ " $fingerprints " == *" ${!#} "* ]] && printf 'keyring-of %s\n' "${!#}"
        ;;
      --dearmor) cp "${!#}" "$output" ;;
    esac
    ;;
  gpgv)
    # gpgv --keyring K SIG FILE: good when SIG was made by K's key.
    read -r _ keyring_key <"$2"
    read -r _ _ signer <"$3"
    [[ $keyring_key == "$signer" ]] || exit 1
    ;;
  iptables)
    # -C CHAIN RULE... answers whether the rule is there; -I CHAIN RULE... puts it there.
    rule="${*:2}"
    case "$1" in
      -C) grep -qxF "$rule" "$STUB_STATE/iptables" 2>/dev/null || exit 1 ;;
      -I) printf '%s\n' "$rule" >>"$STUB_STATE/iptables" ;;
    esac
    ;;
  snap) ln -sf "$STUB_DIR/.command-stub" "$STUB_DIR/aws" ;;
  aws)
    # `aws ssm get-parameter` answers the token; the manager's config.toml parameter answers with what the stack
    # stored ($STUB_STATE/live-config). `describe-auto-scaling-groups` prints STUB_TERMINATING_SIBLINGS (the CLI's
    # text output of the script's --query, "ID<TAB>STATE" lines; the real query's semantics are the system
    # tests', through python3-jmespath) for the first STUB_SIBLING_LOOKS looks, then nothing. Other
    # `aws autoscaling ...` and `aws cloudwatch ...` calls are just logged.
    if [[ $1 == ssm && " $* " == *"/config.toml "* ]]; then
      [[ -f $STUB_STATE/live-config ]] || exit 254
      cat "$STUB_STATE/live-config"
    elif [[ $1 == ssm ]]; then printf '%s\n' "${STUB_STORE_VALUE:-$STUB_RUNNER_TOKEN}"; fi
    if [[ $1 == autoscaling && $2 == describe-auto-scaling-groups ]]; then
      count_up sibling-looks
      if ((count <= ${STUB_SIBLING_LOOKS:-0})); then printf '%b\n' "${STUB_TERMINATING_SIBLINGS:-}"; fi
    fi
    ;;
  systemctl)
    # `show --property=ActiveState --value gitlab-runner` says "deactivating" for the first STUB_ACTIVE_CHECKS
    # calls (a unit stopping with jobs running), then "inactive". `is-active` answers 3 ("not active") for a
    # deactivating unit, as real systemctl does; the real-systemd version of this is test/system/.
    # `cat gitlab-runner`: the unit as systemd has it (STUB_UNIT_TEXT stands for the package unit and drop-in).
    [[ $1 == cat ]] && printf '%s\n' "${STUB_UNIT_TEXT:-[Service]}"
    if [[ $1 == show && " $* " == *" --property=ActiveState "* ]]; then
      count_up active-state
      if ((count <= ${STUB_ACTIVE_CHECKS:-0})); then echo deactivating; else echo "${STUB_FINAL_STATE:-inactive}"; fi
    fi
    # STUB_ACTIVE_UNITS: units that answer `is-active` with 0 (running), as an image's dockerd started before the boot.
    if [[ $1 == is-active ]]; then
      [[ " ${STUB_ACTIVE_UNITS:-} " == *" ${!#} "* ]] && exit 0
      exit 3
    fi
    ;;
  ssh-keygen)
    # `ssh-keygen ... -f <key>`: a private key and its .pub, as the real one writes them.
    key=${!#}
    printf 'stub private key\n' >"$key"
    printf 'ssh-ed25519 AAAA stub\n' >"$key.pub"
    printf '%s\n' "$key" >>"$STUB_STATE/keys"
    ;;
  id) grep -qx "$2" "$STUB_STATE/users" 2>/dev/null || exit 1 ;;
  useradd) printf '%s\n' "${!#}" >>"$STUB_STATE/users" ;;
  curl)
    output="" url="" config_stdin=false previous="" data=""
    for arg in "$@"; do
      [[ $previous == -o ]] && output=$arg
      [[ $previous == --data ]] && data=$arg
      [[ $previous == --config && $arg == - ]] && config_stdin=true
      [[ $arg == http* ]] && url=$arg
      previous=$arg
    done
    case "$url" in
      # OpenPGP keys: a file naming the fingerprints it holds (the gpg stub lists them). STUB_*_KEY swaps in
      # another key, as a compromised or mistaken download would.
      https://packages.gitlab.com/runner/gitlab-runner/gpgkey)
        printf 'fingerprints %s\n' "${STUB_GITLAB_KEY:-F6403F6544A38863DAA0B6E03F01618A51312F3F}" >"$output"
        ;;
      */assets/amazon-cloudwatch-agent.gpg)
        [[ -z ${STUB_AGENT_DOWN:-} ]] || exit 22
        printf 'fingerprints %s\n' "${STUB_CLOUDWATCH_KEY:-937616F3450B7D806CBD9725D58167303B789C72}" >"$output"
        ;;
      https://packages.cloud.google.com/apt/doc/apt-key.gpg)
        [[ -z ${STUB_AGENT_DOWN:-} ]] || exit 22
        printf 'fingerprints GOOGLEPACKAGESKEY\n' >"$output"
        ;;
      # The package names its version (the path's); its signature names the key that made it.
      *amazon-cloudwatch-agent.deb)
        [[ -z ${STUB_AGENT_DOWN:-} ]] || exit 22
        version=${url%/amazon-cloudwatch-agent.deb}
        printf '%s\n' "${version##*/}" >"$output"
        ;;
      *amazon-cloudwatch-agent.deb.sig)
        printf 'signature by %s\n' "${STUB_CLOUDWATCH_SIGNER:-937616F3450B7D806CBD9725D58167303B789C72}" >"$output"
        ;;
      # The runner's metrics listener answers only while STUB_METRICS_UP is set.
      http://127.0.0.1:9252/metrics) [[ -n ${STUB_METRICS_UP:-} ]] || exit 7 ;;
      http://169.254.169.254/latest/api/token)
        [[ -z ${STUB_IMDS_DOWN:-} ]] || exit 7
        printf 'imds-session-%s' "$$" >"$STUB_STATE/imds-session"
        printf 'imds-session-%s' "$$"
        ;;
      http://169.254.169.254/latest/meta-data/*)
        # The IMDSv2 session token must arrive on stdin (curl --config -).
        $config_stdin || exit 22
        read -r session <"$STUB_STATE/imds-session"
        grep -q "X-aws-ec2-metadata-token: $session" || exit 22
        case "$url" in
          */autoscaling/target-lifecycle-state) printf '%s' "${STUB_LIFECYCLE_STATE:-InService}" ;;
          */instance-id) printf 'i-0123456789abcdef0' ;;
          *) exit 22 ;;
        esac
        ;;
      *computeMetadata/v1/instance/service-accounts/default/token)
        printf '{"access_token":"%s","expires_in":3599,"token_type":"Bearer"}' "$STUB_ACCESS_TOKEN"
        ;;
      *computeMetadata/v1/instance/attributes/instance-template)
        [[ -n ${STUB_OWN_TEMPLATE:-} ]] || exit 22
        printf 'projects/123456789/global/instanceTemplates/%s' "$STUB_OWN_TEMPLATE"
        ;;
      *computeMetadata/v1/instance/name) printf '%s' "${STUB_INSTANCE_NAME:-manager-vm}" ;;
      https://compute.googleapis.com/compute/v1/*)
        # The access token must arrive on stdin (curl --config -), never as an argument.
        $config_stdin || exit 22
        grep -q "Authorization: Bearer $STUB_ACCESS_TOKEN" || exit 22
        if [[ $url == */recreateInstances ]]; then
          printf '%s %s\n' "$url" "$data" >>"$STUB_STATE/recreate"
          printf '{"kind": "compute#operation", "status": "RUNNING"}\n'
        else
          printf '{\n  "kind": "compute#instanceGroupManager",\n  "versions": [\n    {\n      "name": "primary",\n      "instanceTemplate": "https://www.googleapis.com/compute/v1/projects/p/global/instanceTemplates/%s"\n    }\n  ]\n}\n' "$STUB_GROUP_TEMPLATE"
        fi
        ;;
      */api/v4/runners/verify)
        # POST /runners/verify: the token arrives on stdin (--data @-), never as an argument; GitLab answers
        # {id, token, token_expires_at} (docs/gitlab-api.md). STUB_RUNNER_ID per token: "<token> <id>" lines.
        IFS= read -r -d '' body || true
        token=${body#token=}
        token=${token%%&*}
        printf '%s\n' "token=<redacted>${body#token="$token"}" >>"$STUB_STATE/verify-bodies"
        id=""
        if [[ -f $STUB_STATE/runner-ids ]]; then
          while read -r listed listed_id; do [[ $listed == "$token" ]] && id=$listed_id; done <"$STUB_STATE/runner-ids"
        fi
        [[ -n $id ]] || id=${STUB_RUNNER_ID:-4242}
        [[ ${STUB_VERIFY:-ok} == ok ]] || exit 22
        printf '{"id":%s,"token":"%s","token_expires_at":null}' "$id" "$token"
        ;;
      https://monitoring.googleapis.com/*)
        $config_stdin || exit 22
        grep -q "Authorization: Bearer $STUB_ACCESS_TOKEN" || exit 22
        printf '%s %s\n' "$url" "$data" >>"$STUB_STATE/monitoring"
        printf '{}'
        ;;
      https://secretmanager.googleapis.com/*-config-*)
        # The manager's config.toml secret: what the stack stored ($STUB_STATE/live-config).
        $config_stdin || exit 22
        grep -q "Authorization: Bearer $STUB_ACCESS_TOKEN" || exit 22
        [[ -f $STUB_STATE/live-config ]] || exit 22
        printf '{"name": "projects/1/secrets/c/versions/1", "payload": {"data": "%s"}}\n' "$(base64 -w0 <"$STUB_STATE/live-config")"
        ;;
      https://secretmanager.googleapis.com/*)
        # The access token must arrive on stdin (curl --config -), never as an argument.
        $config_stdin || exit 22
        grep -q "Authorization: Bearer $STUB_ACCESS_TOKEN" || exit 22
        printf '%s\n' "$url" >>"$STUB_STATE/secret-urls"
        printf '{\n  "name": "projects/1/secrets/x/versions/1",\n  "payload": {\n    "data": "%s",\n    "dataCrc32c": "1"\n  }\n}\n' \
          "$(printf '%s' "${STUB_STORE_VALUE:-$STUB_RUNNER_TOKEN}" | base64 -w0)"
        ;;
      *) exit 6 ;;
    esac
    ;;
  gitlab-runner)
    if [[ -f $RUNNER_FLEET_ROOT/etc/gitlab-runner/config.toml ]]; then
      echo present >"$STUB_STATE/config-at-fleeting-install"
    fi
    # `fleeting -c <config> install` puts each plugin at <FLEETING_PLUGIN_PATH>/<registry>/<repository>/<name>/<version>/plugin
    # (gitlab-runner issue 38247 shows .../registry.gitlab.com/gitlab-org/fleeting/plugins/aws/1.0.0/plugin).
    if [[ $1 == fleeting && ${!#} == install ]]; then
      reference=""
      while IFS= read -r line; do
        if [[ -z $reference && $line =~ ^\ *plugin\ =\ \"([^\"]*)\" ]]; then reference=${BASH_REMATCH[1]}; fi
      done <"$3"
      [[ $reference == */* ]] || reference="registry.gitlab.com/gitlab-org/fleeting/plugins/$reference"
      plugin="$RUNNER_FLEET_ROOT$FLEETING_PLUGIN_PATH/${reference%:*}/${reference##*:}/plugin"
      mkdir -p "${plugin%/*}"
      printf '#!/bin/sh\n' >"$plugin"
      chmod 0755 "$plugin"
    fi
    ;;
esac
exit 0
