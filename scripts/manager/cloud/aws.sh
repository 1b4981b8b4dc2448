# shellcheck shell=bash
# The AWS half of the runner manager: instance metadata (IMDSv2), the CloudWatch agent, the termination
# drain, the health timer and the report of a failed boot. Needs the AWS CLI (installed on first use).
# shellcheck disable=SC2154 # AWS_REGION_NAME and the other settings come from manager.env.

# snap installs the AWS CLI here; the CLI must use IMDSv2 only.
export PATH="${PATH}:/snap/bin"
export AWS_EC2_METADATA_V1_DISABLED=true

readonly HEALTH_FAILURES_FILE="${RUN_DIR}/health-failures"

ensure_aws_cli() {
  if ! command -v aws >/dev/null 2>&1; then
    log "installing the AWS CLI"
    retry 5 snap install aws-cli --classic
  fi
}

# IMDSv2; the session token goes to curl on stdin.
imds() {
  local session
  session=$(curl -fsS --max-time 10 -X PUT -H 'X-aws-ec2-metadata-token-ttl-seconds: 60' http://169.254.169.254/latest/api/token) || return 1
  printf 'header = "X-aws-ec2-metadata-token: %s"\n' "$session" |
    curl -fsS --max-time 10 --config - "http://169.254.169.254/latest/meta-data/$1"
}

# EC2 runs user data on the first boot only; cloud-init runs per-boot scripts at every boot.
cloud_prepare_boot() {
  local hook="${ROOT}/var/lib/cloud/scripts/per-boot/runner-fleet-manager.sh"
  if [[ ! -f $hook ]]; then
    install -d -m 0755 "${hook%/*}"
    printf '#!/bin/sh\n# Installed by runner-fleet: runs the runner manager at every boot.\nexec /usr/local/sbin/runner-fleet-manager boot\n' >"$hook"
    chmod 0700 "$hook"
  fi
  # gitlab-runner's log file opens with StandardOutput=append:, which makes the file but not its directory.
  install -d -m 0750 "${ROOT}${RUNNER_LOG_FILE%/*}"
  ensure_aws_cli
}

# The CloudWatch agent at a pinned version, from the region's own bucket, installed only when its detached
# signature verifies against AWS's agent signing key at the fingerprint AWS documents ("Verify the signature of
# the CloudWatch agent package": https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/verify-CloudWatch-Agent-Package-Signature.html).
# Never a `latest/` path: a new agent arrives with a reviewed change of this version (docs/security.md says how).
readonly CLOUDWATCH_AGENT_VERSION=1.300040.0
readonly CLOUDWATCH_AGENT_KEY_FINGERPRINT=937616F3450B7D806CBD9725D58167303B789C72

# install_cloudwatch_agent: downloads the package and its signature, checks them, installs; UNTRUSTED_DOWNLOAD
# when the key or the signature is not the pinned one.
install_cloudwatch_agent() {
  local bucket="https://amazoncloudwatch-agent-${AWS_REGION_NAME}.s3.${AWS_REGION_NAME}.amazonaws.com" work status=0
  work=$(mktemp -d) || return 1
  log "installing the Amazon CloudWatch agent ${CLOUDWATCH_AGENT_VERSION}"
  install_pinned_key "${bucket}/assets/amazon-cloudwatch-agent.gpg" "$CLOUDWATCH_AGENT_KEY_FINGERPRINT" "${work}/agent.gpg" || status=$?
  if ((status == 0)); then
    { retry 5 curl -fsSL -o "${work}/agent.deb" "${bucket}/ubuntu/${RUNNER_ARCH}/${CLOUDWATCH_AGENT_VERSION}/amazon-cloudwatch-agent.deb" &&
      retry 5 curl -fsSL -o "${work}/agent.deb.sig" "${bucket}/ubuntu/${RUNNER_ARCH}/${CLOUDWATCH_AGENT_VERSION}/amazon-cloudwatch-agent.deb.sig"; } || status=1
  fi
  # gpgv trusts the keyring it is given and nothing else: a good signature is one by the pinned key.
  if ((status == 0)) && ! gpgv --keyring "${work}/agent.gpg" "${work}/agent.deb.sig" "${work}/agent.deb" >/dev/null 2>&1; then
    log "the CloudWatch agent package's signature does not verify against ${CLOUDWATCH_AGENT_KEY_FINGERPRINT}: not installing it"
    status=$UNTRUSTED_DOWNLOAD
  fi
  if ((status == 0)); then
    dpkg -i -E "${work}/agent.deb" || status=1
  fi
  rm -rf "$work"
  return "$status"
}

# CloudWatch agent: ships gitlab-runner's JSON log to the shard's log group (the alarms use metric filters on
# it). Its configuration is a file of the startup payload.
setup_monitoring() {
  local installed
  installed=$(installed_version amazon-cloudwatch-agent)
  if [[ $installed != "${CLOUDWATCH_AGENT_VERSION}"* ]]; then
    install_cloudwatch_agent || return $?
  fi
  "${ROOT}/opt/aws/amazon-cloudwatch-agent/bin/amazon-cloudwatch-agent-ctl" -a fetch-config -m ec2 -s \
    -c "file:${RUNNER_FLEET_ETC}/cloudwatch-agent.json" || return 1
}

# A failed boot: the instance is reported Unhealthy at once (not after the grace period, which a failed boot
# would otherwise sit out with no runner), and a BootFailures data point makes the shard's alarm fire even
# when the group keeps replacing the instance (each replacement is InService while it boots).
cloud_report_boot_failure() {
  local instance_id
  instance_id=$(imds instance-id) || return 1
  aws cloudwatch put-metric-data --region "$AWS_REGION_NAME" --namespace "$BOOT_METRIC_NAMESPACE" \
    --metric-name BootFailures --dimensions "Shard=${SHARD_NAME}" --value 1 --unit Count ||
    log "could not record the failed boot in CloudWatch"
  log "reporting this instance Unhealthy to ${MANAGER_NAME}; Auto Scaling replaces it"
  retry 3 aws autoscaling set-instance-health --region "$AWS_REGION_NAME" --instance-id "$instance_id" \
    --health-status Unhealthy --no-should-respect-grace-period
}

# Drain on termination: the group's termination lifecycle hook holds a terminating instance in
# Terminating:Wait, which instance metadata reports as target-lifecycle-state "Terminated" (EC2 Auto Scaling
# guide, "Retrieve the target lifecycle state through instance metadata"). gitlab-runner stops gracefully
# (SIGQUIT); heartbeats keep the hook open past its 2 h cap while the unit is still `deactivating`, and only
# once it is `inactive` (or `failed`) does complete-lifecycle-action let the termination go on.
cloud_drain() {
  local state instance_id last_heartbeat=$SECONDS
  state=$(imds autoscaling/target-lifecycle-state) || exit 0
  [[ $state == Terminated ]] || exit 0
  instance_id=$(imds instance-id)
  if runner_running; then
    log "terminating: stopping gitlab-runner with SIGQUIT; running jobs get up to ${GRACEFUL_STOP_SECONDS}s"
    systemctl stop --no-block gitlab-runner
  else
    # A boot that failed or still runs (this timer starts with the boot): nothing to drain, the slot is released.
    log "terminating with gitlab-runner $(runner_state); nothing to drain"
  fi
  while runner_running; do
    if ((SECONDS - last_heartbeat >= DRAIN_HEARTBEAT_SECONDS)); then
      aws autoscaling record-lifecycle-action-heartbeat --region "$AWS_REGION_NAME" \
        --lifecycle-hook-name "$DRAIN_HOOK_NAME" --auto-scaling-group-name "$MANAGER_NAME" --instance-id "$instance_id" ||
        log "lifecycle heartbeat failed"
      last_heartbeat=$SECONDS
    fi
    sleep "$DRAIN_POLL_SECONDS"
  done
  log "gitlab-runner is $(runner_state); completing the lifecycle hook"
  retry 5 aws autoscaling complete-lifecycle-action --region "$AWS_REGION_NAME" --lifecycle-action-result CONTINUE \
    --lifecycle-hook-name "$DRAIN_HOOK_NAME" --auto-scaling-group-name "$MANAGER_NAME" --instance-id "$instance_id"
}

# Process-level health (lib/render/manager-health.ts): EC2 status checks miss a gitlab-runner that hangs or
# exited on a live instance. Only an InService instance is judged (not one starting, in standby or
# draining); the failure count lives on /run, so it restarts at every boot; Auto Scaling still respects the
# group's health check grace period.
cloud_health() {
  local state failures=0 instance_id
  state=$(imds autoscaling/target-lifecycle-state) || exit 0
  [[ $state == InService ]] || exit 0
  if curl -fsS -o /dev/null --max-time "$HEALTH_PROBE_TIMEOUT_SECONDS" "http://127.0.0.1:${METRICS_PORT}/metrics"; then
    rm -f "$HEALTH_FAILURES_FILE"
    exit 0
  fi
  [[ -f $HEALTH_FAILURES_FILE ]] && failures=$(<"$HEALTH_FAILURES_FILE")
  failures=$((failures + 1))
  install -d -m 0755 "$RUN_DIR"
  printf '%s\n' "$failures" >"$HEALTH_FAILURES_FILE"
  log "gitlab-runner did not answer on :${METRICS_PORT} (${failures}/${HEALTH_FAILURE_LIMIT})"
  ((failures >= HEALTH_FAILURE_LIMIT)) || exit 0
  instance_id=$(imds instance-id)
  log "reporting this instance Unhealthy to ${MANAGER_NAME}; Auto Scaling replaces it"
  retry 3 aws autoscaling set-instance-health --region "$AWS_REGION_NAME" --instance-id "$instance_id" --health-status Unhealthy
}

# The boot's first sign of life, before anything that can fail or wait: the heartbeat (also the timer's).
cloud_boot_started() {
  cloud_heartbeat || log "could not record the heartbeat in CloudWatch"
}

# ManagerHeartbeat{Shard, Slot}: 1 while gitlab-runner runs (stopping included), 0 while this manager is up
# without it (booting, waiting, failed). Put from the start of the boot and every minute by its timer, so the
# shard's heartbeat alarm (treat_missing_data: breaching) sees a slot whose manager hangs before its runner
# starts, or that is gone, without depending on the runner or its log.
cloud_heartbeat() {
  local value=0
  command -v aws >/dev/null 2>&1 || return 0
  runner_running && value=1
  aws cloudwatch put-metric-data --region "$AWS_REGION_NAME" --namespace "$BOOT_METRIC_NAMESPACE" \
    --metric-name "$HEARTBEAT_METRIC" --dimensions "Shard=${SHARD_NAME},Slot=${SLOT}" --value "$value" --unit Count
}

# The other instances of this slot's group that are terminating, one "ID<TAB>STATE" a line. The AWS CLI applies
# the --query (JMESPath) to DescribeAutoScalingGroups' answer (AutoScalingGroups[].Instances[] with InstanceId
# and LifecycleState; Terminating, Terminating:Wait and Terminating:Proceed come before Terminated: EC2 Auto
# Scaling API Reference, Instance) and prints each row tab-separated (--output text).
terminating_siblings() {
  aws autoscaling describe-auto-scaling-groups --region "$AWS_REGION_NAME" --auto-scaling-group-names "$MANAGER_NAME" \
    --query "AutoScalingGroups[].Instances[?InstanceId != '${1}' && starts_with(LifecycleState, 'Terminating')][].[InstanceId, LifecycleState]" \
    --output text
}

# One manager per slot: gitlab-runner must not see config.toml while the slot's previous manager drains.
# "Terminate and launch" (the group's instance maintenance policy, min 0 % / max 100 %) provisions the
# replacement "at the same time" the old instance terminates, and MaxHealthyPercentage counts instances "in
# service and healthy, or pending": one held in Terminating:Wait by the drain hook counts as neither (EC2 Auto
# Scaling user guide, instance maintenance policies; API Reference, InstanceMaintenancePolicy). A runner that
# started now would remove the draining manager's workers, with their jobs: the autoscaler provider removes
# every instance it has no data on (gitlab-runner executors/internal/autoscaler/provider.go, instanceReadyUp:
# "no data on pre-existing instance so removing for safety"). Waits up to SLOT_WAIT_SECONDS (the drain's
# longest), then fails the boot.
cloud_wait_for_slot() {
  local instance_id siblings="" seen="" started=$SECONDS bound=${RUNNER_FLEET_SLOT_WAIT_SECONDS:-$SLOT_WAIT_SECONDS}
  local poll=${RUNNER_FLEET_SLOT_POLL_SECONDS:-$SLOT_POLL_SECONDS}
  instance_id=$(imds instance-id) || return 1
  while :; do
    if siblings=$(terminating_siblings "$instance_id"); then
      if [[ -z $siblings ]]; then
        [[ -z $seen ]] || log "the previous manager of ${MANAGER_NAME} is gone; starting gitlab-runner"
        return 0
      fi
      if [[ $siblings != "$seen" ]]; then
        log "waiting for ${siblings//[[:space:]]/ } of ${MANAGER_NAME} to finish draining before gitlab-runner starts (up to ${bound}s)"
        seen=$siblings
      fi
    else
      log "could not read the instances of ${MANAGER_NAME}; retrying"
    fi
    if ((SECONDS - started >= bound)); then
      log "the slot ${MANAGER_NAME} was not free after ${bound}s; giving up"
      return 1
    fi
    bounded_sleep "$poll" "$((bound - (SECONDS - started)))"
  done
}
