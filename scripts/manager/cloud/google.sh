# shellcheck shell=bash
# The Google Cloud half of the runner manager: the metadata server, the Ops Agent, the drain before a
# replacement and the report of a failed boot. Needs only curl (no gcloud).
# shellcheck disable=SC2154 # GROUP_PATH and the other settings come from manager.env.

readonly METADATA_URL='http://metadata.google.internal/computeMetadata/v1'

# Metadata server value (instance/...); fails when absent.
gce_metadata() {
  curl -fsS --max-time 10 -H 'Metadata-Flavor: Google' "${METADATA_URL}/instance/$1"
}

# The VM service account's access token, into ACCESS_TOKEN (a shell variable, never an argument).
read_access_token() {
  local metadata
  metadata=$(gce_metadata service-accounts/default/token) || return 1
  [[ $metadata =~ \"access_token\"[[:space:]]*:[[:space:]]*\"([^\"]+)\" ]] || return 1
  ACCESS_TOKEN=${BASH_REMATCH[1]}
}

# google_api METHOD URL [BODY]: a Google API call with the VM's access token (on curl's stdin, not argv).
google_api() {
  read_access_token || return 1
  printf 'header = "Authorization: Bearer %s"\n' "$ACCESS_TOKEN" |
    curl -fsS --max-time 30 --config - -X "$1" -H 'Content-Type: application/json' ${3:+--data "$3"} "$2"
}

# Compute Engine API call on this slot's own manager group: METHOD PATH [BODY].
compute_api() {
  google_api "$1" "https://compute.googleapis.com/compute/v1/${GROUP_PATH}$2" ${3:+"$3"}
}

# The guest agent runs the startup-script metadata at every boot: nothing to install.
cloud_prepare_boot() {
  :
}

# The Ops Agent at a pinned version, from Google's apt repository of its major version (what Google's
# add-google-cloud-ops-agent-repo.sh adds with REPO_SUFFIX=2, without running that script), held there. apt
# checks the repository's signature against Google's packages key, kept in a keyring of its own (signed-by) and
# fetched over HTTPS from Google (its fingerprint is not pinned: Google rotates that key and documents no
# fingerprint to check it against). A new agent arrives with a reviewed change of this version (docs/security.md).
readonly OPS_AGENT_VERSION=2.70.0
readonly OPS_AGENT_REPOSITORY_SUFFIX=2
readonly GOOGLE_PACKAGES_KEY_URL=https://packages.cloud.google.com/apt/doc/apt-key.gpg
readonly OPS_AGENT_KEYRING=/usr/share/keyrings/google-cloud-ops-agent-archive-keyring.gpg

install_ops_agent() {
  local download
  read_os_release || return 1
  log "installing the Google Cloud Ops Agent ${OPS_AGENT_VERSION}"
  download=$(mktemp) || return 1
  if ! retry 5 curl -fsSL -o "$download" "$GOOGLE_PACKAGES_KEY_URL" ||
    ! gpg --batch --yes --dearmor -o "${download}.gpg" "$download"; then
    rm -f "$download" "${download}.gpg"
    return 1
  fi
  install -D -m 0644 "${download}.gpg" "${ROOT}${OPS_AGENT_KEYRING}"
  rm -f "$download" "${download}.gpg"
  put_apt_source "${ROOT}/etc/apt/sources.list.d/google-cloud-ops-agent.list" \
    "deb [signed-by=${OPS_AGENT_KEYRING}] https://packages.cloud.google.com/apt google-cloud-ops-agent-${OS_CODENAME}-${OPS_AGENT_REPOSITORY_SUFFIX} main"
  # The repository's versions read <version>~<distribution><release>, such as 2.70.0~ubuntu24.04.
  apt_install --allow-change-held-packages --allow-downgrades "google-cloud-ops-agent=${OPS_AGENT_VERSION}~${OS_ID}${OS_VERSION_ID}" || return 1
  apt-mark hold google-cloud-ops-agent >/dev/null
}

# Ops Agent: scrapes the runner's Prometheus metrics into Cloud Monitoring and labels every sample with this
# manager's cell, shard and slot (the alerts select by them). Its configuration is a file of the payload.
setup_monitoring() {
  local installed
  installed=$(installed_version google-cloud-ops-agent)
  if [[ $installed != "${OPS_AGENT_VERSION}"* ]]; then
    install_ops_agent || return $?
  fi
  install -d -m 0755 "${ROOT}/etc/google-cloud-ops-agent" || return 1
  install -m 0644 "${RUNNER_FLEET_ETC}/ops-agent.yaml" "${ROOT}/etc/google-cloud-ops-agent/config.yaml" || return 1
  systemctl restart google-cloud-ops-agent || return 1
}

# A failed boot: one point of the custom metric the shard's "boot failed" alert counts. The group's
# autohealing (HTTP check of :9252, which a failed boot never answers) then recreates the VM.
cloud_report_boot_failure() {
  local now body
  TZ=UTC0 printf -v now '%(%Y-%m-%dT%H:%M:%SZ)T' -1
  # The labels the alerts select by (lib/contract/fleet-contract.ts MANAGER_METRIC_LABELS). Names are DNS labels: no quoting needed.
  body=$(printf '{"timeSeries":[{"metric":{"type":"%s","labels":{"gitlab_cell":"%s","runner_shard":"%s","runner_slot":"%s"}},"resource":{"type":"global","labels":{"project_id":"%s"}},"points":[{"interval":{"endTime":"%s"},"value":{"int64Value":"1"}}]}]}' \
    "$BOOT_METRIC_TYPE" "$CELL_ID" "$SHARD_NAME" "$SLOT" "$GOOGLE_PROJECT" "$now")
  google_api POST "https://monitoring.googleapis.com/v3/projects/${GOOGLE_PROJECT}/timeSeries" "$body" >/dev/null
}

# Drain before replacement: the manager groups update OPPORTUNISTIC, so a new template (a roll's wave)
# replaces nothing by itself. This timer sees the group's template differ from the one the VM was created
# from, stops gitlab-runner gracefully (SIGQUIT, up to TimeoutStopSec = maximum_timeout plus a margin) and
# waits until the unit is `inactive`, and only then asks the group to recreate this VM (recreateInstances:
# delete, then create from the new template, same name, no surge: never two managers on one worker group).
# Compute Engine gives shutdown scripts only about 90 s, and graceful_shutdown is in the google-beta
# provider only, hence this order. Autohealing leaves a draining VM alone: gitlab-runner keeps serving :9252
# until it exits (commands/multi.go starts the metrics server with http.Serve and never stops it on SIGQUIT).
cloud_drain() {
  local own name group target
  own=$(gce_metadata attributes/instance-template) || exit 0
  group=$(compute_api GET "") || exit 0
  [[ $group =~ \"instanceTemplate\"[[:space:]]*:[[:space:]]*\"([^\"]+)\" ]] || exit 0
  target=${BASH_REMATCH[1]}
  [[ ${target##*/} != "${own##*/}" ]] || exit 0
  name=$(gce_metadata name)
  log "group ${MANAGER_NAME} has template ${target##*/}: stopping gitlab-runner with SIGQUIT; running jobs get up to ${GRACEFUL_STOP_SECONDS}s"
  stop_runner_and_wait
  log "gitlab-runner is $(runner_state); asking ${MANAGER_NAME} to recreate ${name}"
  retry 5 compute_api POST /recreateInstances "{\"instances\": [\"zones/${GROUP_ZONE}/instances/${name}\"]}"
}

# Google's manager groups autoheal on an HTTP check of :9252; there is no health timer.
cloud_health() {
  log "health: Google Cloud managers are autohealed by their group's health check"
}
