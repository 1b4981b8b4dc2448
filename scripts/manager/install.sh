# shellcheck shell=bash
# Installing what the manager runs: base tools, the pinned gitlab-runner, the fleeting plugin.
# shellcheck disable=SC2154,SC2034 # settings come from manager.env; APT_UPDATED is common.sh's.

ensure_base_tools() {
  if ! command -v curl >/dev/null 2>&1; then
    apt_install ca-certificates curl
  fi
}

# apt installs the runner, and `gitlab-runner fleeting install` the plugin, for the host's architecture: an
# image of another architecture than the machine type's would run nothing (exec format errors) after a long install.
check_architecture() {
  local arch
  arch=$(dpkg --print-architecture)
  if [[ $arch != "$RUNNER_ARCH" ]]; then
    log "this image is ${arch}, but the machine type is ${RUNNER_ARCH}: boot an ${RUNNER_ARCH} image"
    return 1
  fi
}

# The pinned gitlab-runner from GitLab's apt repository (packages.gitlab.com).
install_gitlab_runner() {
  local installed setup
  installed=$(installed_version gitlab-runner)
  if [[ $installed == "$RUNNER_PACKAGE_VERSION" ]]; then
    log "gitlab-runner ${RUNNER_VERSION} is already installed"
    return 0
  fi
  log "installing gitlab-runner ${RUNNER_VERSION} (installed: ${installed:-none})"
  if [[ ! -e ${ROOT}/etc/apt/sources.list.d/runner_gitlab-runner.list ]]; then
    log "adding the packages.gitlab.com apt repository"
    setup=$(mktemp)
    retry 5 curl -fsSL -o "$setup" https://packages.gitlab.com/install/repositories/runner/gitlab-runner/script.deb.sh
    bash "$setup"
    rm -f "$setup"
    APT_UPDATED=false
  fi
  # The helper images package must match the runner's version exactly (GitLab's install docs).
  apt_install --allow-change-held-packages --allow-downgrades \
    "gitlab-runner=${RUNNER_PACKAGE_VERSION}" "gitlab-runner-helper-images=${RUNNER_PACKAGE_VERSION}"
  # Only a new startup payload moves the version, never an unattended upgrade.
  apt-mark hold gitlab-runner gitlab-runner-helper-images >/dev/null
}

# Resolves the plugin reference in config.toml from the OCI registry, once: the reference names an exact
# version, so a plugin already at its install path is that version and the registry is not asked again.
install_fleeting_plugin() {
  local installed="${ROOT}${FLEETING_PLUGIN_DIR}/${FLEETING_PLUGIN_INSTALLED_PATH}"
  if [[ -x $installed ]]; then
    log "the fleeting plugin ${FLEETING_PLUGIN} is already installed"
    return 0
  fi
  log "installing the fleeting plugin ${FLEETING_PLUGIN} for linux/${RUNNER_ARCH}"
  retry 5 env HOME=/root FLEETING_PLUGIN_PATH="$FLEETING_PLUGIN_DIR" \
    gitlab-runner fleeting -c "$RUNNER_CONFIG_FILE" install
}

# One SSH key per manager, made at its first boot and kept: config.toml's connector_config key_path names it.
# Without a key_path the aws plugin makes a new RSA-4096 key for nearly every connection (and sends it with
# EC2 Instance Connect each time), which costs a burstable manager CPU in bursts; with one, the plugin only
# sends this key's public half (fleeting-plugin-aws and fleeting-plugin-googlecloud READMEs: key_path).
ensure_fleeting_ssh_key() {
  local key="${ROOT}${FLEETING_SSH_KEY}"
  if [[ -s $key ]]; then
    return 0
  fi
  log "making the SSH key the fleeting plugin connects to workers with"
  install -d -m 0700 "${key%/*}"
  rm -f "$key" "${key}.pub"
  ssh-keygen -q -t ed25519 -N '' -C "$MANAGER_NAME" -f "$key"
  chmod 0600 "$key"
}
