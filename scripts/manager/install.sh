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
