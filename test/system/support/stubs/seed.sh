#!/bin/bash
# Run once inside a freshly booted container: what a cloud image brings that the rootfs lacks.
#   seed.sh google|aws
# Google images run the Ops Agent and AWS managers the CloudWatch agent; both are pre-seeded as
# installed (the manager script then only configures them), as stubs that record their calls.
set -euo pipefail
source /usr/local/lib/runner-fleet-stubs/stub-lib.sh
mkdir -p "${STUB_STATE}/dpkg" "${STUB_STATE}/runner"
case ${1:-} in
  google)
    # The versions the boot pins (scripts/manager/cloud/*.sh): an image with another version gets the pinned one.
    echo '2.70.0~debian12' >"${STUB_STATE}/dpkg/google-cloud-ops-agent"
    cat >/etc/systemd/system/google-cloud-ops-agent.service <<'UNIT'
[Unit]
Description=Google Cloud Ops Agent (system-test stand-in)
[Service]
ExecStart=/bin/sleep infinity
[Install]
WantedBy=multi-user.target
UNIT
    systemctl daemon-reload
    ;;
  aws)
    echo 1.300040.0-1 >"${STUB_STATE}/dpkg/amazon-cloudwatch-agent"
    install -d /opt/aws/amazon-cloudwatch-agent/bin
    ln -sf "${STUB_DIR}/record-call" /opt/aws/amazon-cloudwatch-agent/bin/amazon-cloudwatch-agent-ctl
    ;;
  *) echo "usage: seed.sh google|aws" >&2; exit 2 ;;
esac
