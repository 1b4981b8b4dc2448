# shellcheck shell=bash
# Installing what the manager runs: base tools, the pinned gitlab-runner, the fleeting plugin.
# shellcheck disable=SC2154,SC2034 # settings come from manager.env; APT_UPDATED is common.sh's.

ensure_base_tools() {
  if ! command -v curl >/dev/null 2>&1 || ! command -v gpg >/dev/null 2>&1; then
    apt_install ca-certificates curl gnupg
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

# GitLab's apt repository, added as its own install script (script.deb.sh) would, but without running one: apt
# checks the repository's signature against this key alone (signed-by), the repository metadata signing key of
# packages.gitlab.com, "GitLab B.V. (package repository signing key) <packages@gitlab.com>", whose fingerprint
# GitLab documents (https://docs.gitlab.com/omnibus/update/package_signatures/#package-repository-metadata-signing-key;
# the runner's install docs point there: docs/install/linux-repository.md, "Repository metadata signing").
# A new key at packages.gitlab.com changes this line, reviewed like any other (docs/security.md).
readonly GITLAB_REPOSITORY_KEY_URL=https://packages.gitlab.com/runner/gitlab-runner/gpgkey
readonly GITLAB_REPOSITORY_KEY_FINGERPRINT=F6403F6544A38863DAA0B6E03F01618A51312F3F
readonly GITLAB_REPOSITORY_KEYRING=/usr/share/keyrings/runner_gitlab-runner-archive-keyring.gpg

add_gitlab_repository() {
  read_os_release
  log "adding the packages.gitlab.com apt repository (${OS_ID} ${OS_CODENAME}), signed by ${GITLAB_REPOSITORY_KEY_FINGERPRINT}"
  install_pinned_key "$GITLAB_REPOSITORY_KEY_URL" "$GITLAB_REPOSITORY_KEY_FINGERPRINT" "${ROOT}${GITLAB_REPOSITORY_KEYRING}"
  # The file name script.deb.sh uses, so a manager set up by an earlier version gets this line instead.
  put_apt_source "${ROOT}/etc/apt/sources.list.d/runner_gitlab-runner.list" \
    "deb [signed-by=${GITLAB_REPOSITORY_KEYRING}] https://packages.gitlab.com/runner/gitlab-runner/${OS_ID}/ ${OS_CODENAME} main"
}

# The pinned gitlab-runner from GitLab's apt repository (packages.gitlab.com).
install_gitlab_runner() {
  local installed
  installed=$(installed_version gitlab-runner)
  if [[ $installed == "$RUNNER_PACKAGE_VERSION" ]]; then
    log "gitlab-runner ${RUNNER_VERSION} is already installed"
    return 0
  fi
  log "installing gitlab-runner ${RUNNER_VERSION} (installed: ${installed:-none})"
  add_gitlab_repository
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
