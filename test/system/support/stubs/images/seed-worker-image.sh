#!/bin/bash
# Run once in a freshly booted container: makes it the worker image a test names.
#   ubuntu                 Canonical's Ubuntu image, Google's default: apt's daily timers and unattended-upgrades
#                          enabled and running, no Docker. The rootfs's apt ships the same apt-daily*.timer/.service
#                          as Ubuntu's apt (both build them from apt's debian/ directory) and enables the timers;
#                          unattended-upgrades.service is the package's unit verbatim (unattended-upgrades
#                          2.9.1+nmu3, data/unattended-upgrades.service, the file Ubuntu's package ships too).
#   ubuntu-with-docker     the same with docker.io installed, enabled and running: a team's baked image.
#   amazon-linux-2023-ecs  the ECS-optimized Amazon Linux 2023 AMI, AWS's default: no apt (apt-get, its stub and its
#                          timers gone), dnf, sshd running, Docker installed and running with the AMI's daemon.json
#                          ({"userland-proxy": false}), the ECS agent's ecs.service
#                          running, and no ec2-instance-connect (built from the minimal AMI: aws/amazon-ecs-ami
#                          issue 170).
set -euo pipefail
source /usr/local/lib/runner-fleet-stubs/stub-lib.sh
readonly IMAGES="${STUB_DIR}/images"
# The docker CLI stub records calls of the connector user too.
touch "${STUB_STATE}/calls.log"
chmod 0666 "${STUB_STATE}/calls.log"

ubuntu_upgrades() {
  install -m 0644 "${IMAGES}/unattended-upgrades.service" /usr/lib/systemd/system/unattended-upgrades.service
  install -d /usr/share/unattended-upgrades
  install -m 0755 "${IMAGES}/waits-for-signal" /usr/share/unattended-upgrades/unattended-upgrade-shutdown
  systemctl daemon-reload
  systemctl enable apt-daily.timer apt-daily-upgrade.timer unattended-upgrades.service 2>/dev/null
  systemctl start apt-daily.timer apt-daily-upgrade.timer unattended-upgrades.service
}

amazon_linux_ecs() {
  # The stubs' bin directory holds an apt-get: unmounted, it leaves the rootfs's empty /usr/local/bin.
  umount /usr/local/bin
  systemctl disable --now apt-daily.timer apt-daily-upgrade.timer 2>/dev/null
  rm -f /usr/bin/apt-get /usr/bin/apt /usr/lib/systemd/system/apt-daily*
  install -m 0755 "${IMAGES}/dnf" /usr/bin/dnf
  install -d /usr/libexec
  install -m 0755 "${IMAGES}/waits-for-signal" /usr/libexec/amazon-ecs-init
  install -m 0755 "${IMAGES}/waits-for-signal" /usr/sbin/sshd
  # The AMI's build writes Docker's daemon settings before Docker first starts (aws/amazon-ecs-ami
  # scripts/install-docker.sh).
  install -d /etc/docker
  printf '{\n    "userland-proxy": false\n}\n' >/etc/docker/daemon.json
  "${STUB_DIR}/docker/install-docker.sh" amazon-linux
  # The ECS agent's unit as amazon-ecs-init installs it, reduced to what a worker sees: it needs Docker and runs.
  cat >/usr/lib/systemd/system/ecs.service <<'UNIT'
[Unit]
Description=Amazon Elastic Container Service - container agent (system-test stand-in)
Requires=docker.service
After=docker.service

[Service]
Type=simple
ExecStart=/usr/libexec/amazon-ecs-init start
Restart=on-failure

[Install]
WantedBy=multi-user.target
UNIT
  # OpenSSH's server as AL2023 runs it (sshd.service), reduced to a process that records its starts and stops.
  cat >/usr/lib/systemd/system/sshd.service <<'UNIT'
[Unit]
Description=OpenSSH server daemon (system-test stand-in)

[Service]
ExecStart=/usr/sbin/sshd -D

[Install]
WantedBy=multi-user.target
UNIT
  systemctl daemon-reload
  systemctl enable --now ecs.service sshd.service 2>/dev/null
}

case ${1:-} in
  ubuntu) ubuntu_upgrades ;;
  ubuntu-with-docker) ubuntu_upgrades; "${STUB_DIR}/docker/install-docker.sh" debian ;;
  amazon-linux-2023-ecs) amazon_linux_ecs ;;
  *) echo "usage: seed-worker-image.sh ubuntu|ubuntu-with-docker|amazon-linux-2023-ecs" >&2; exit 2 ;;
esac
