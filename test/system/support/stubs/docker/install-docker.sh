#!/bin/bash
# What installing a distribution's Docker package does, with the stand-in binaries (./docker, ./dockerd, ./iptables):
#   debian        Debian/Ubuntu docker.io (20.10.24+dfsg1-1+deb12u1): /usr/bin/docker, /usr/sbin/dockerd, its postinst
#                 adds the system group docker, and dh_installsystemd enables and starts docker.service.
#   amazon-linux  Amazon Linux 2023's docker: /usr/bin/dockerd, the docker group; the ECS-optimized AMI enables it.
# docker.service is the package's unit (docker.io: lib/systemd/system/docker.service) without socket activation
# and containerd, which the stand-in does not have. Type=simple where the package says notify: the unit is
# active before the API answers, the harsher order for a boot that must wait for `docker info`.
#   install-docker.sh debian|amazon-linux
set -euo pipefail
source /usr/local/lib/runner-fleet-stubs/stub-lib.sh
case ${1:-} in
  debian) dockerd=/usr/sbin/dockerd ;;
  amazon-linux) dockerd=/usr/bin/dockerd ;;
  *) echo "usage: install-docker.sh debian|amazon-linux" >&2; exit 2 ;;
esac
install -m 0755 "${STUB_DIR}/docker/docker" /usr/bin/docker
# Both packages depend on iptables (docker.io: iptables; Amazon Linux's docker: iptables-nft): dockerd's own rules.
install -m 0755 "${STUB_DIR}/docker/iptables" /usr/sbin/iptables
install -m 0755 "${STUB_DIR}/docker/dockerd" "$dockerd"
getent group docker >/dev/null || groupadd --system docker
cat >/usr/lib/systemd/system/docker.service <<UNIT
[Unit]
Description=Docker Application Container Engine (system-test stand-in)
Documentation=https://docs.docker.com
After=network-online.target firewalld.service
Wants=network-online.target

[Service]
Type=simple
ExecStart=${dockerd}
ExecReload=/bin/kill -s HUP \$MAINPID
TimeoutStartSec=0
KillMode=process
Restart=on-failure
StartLimitBurst=3
StartLimitInterval=60s

[Install]
WantedBy=multi-user.target
UNIT
systemctl daemon-reload
systemctl enable docker.service 2>/dev/null
systemctl start docker.service
stub_log docker-package installed "$1"
