#!/bin/bash
# Served by the curl stub as https://packages.gitlab.com/install/repositories/runner/gitlab-runner/script.deb.sh:
# the real one adds GitLab's apt repository; this one writes the same list file and records the call.
source /usr/local/lib/runner-fleet-stubs/stub-lib.sh
stub_log packagecloud-script run "$@"
install -d -m 0755 /etc/apt/sources.list.d
echo 'deb [signed-by=/usr/share/keyrings/runner_gitlab-runner-archive-keyring.gpg] https://packages.gitlab.com/runner/gitlab-runner/debian/ bookworm main' \
  >/etc/apt/sources.list.d/runner_gitlab-runner.list
