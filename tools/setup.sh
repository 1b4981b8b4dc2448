#!/usr/bin/env bash
# The README's set-up command (`npm run setup`): everything the tests need, on a fresh clone,
# with or without root. One step a line; each step is its own script and can be run alone.
set -euo pipefail
cd "$(dirname "$0")/.."

npm ci --no-audit --no-fund        # dependencies, pinned by the lockfile
npm run build                      # dist/: the compiled code and one bundle per command, which bin/ runs
bash tools/setup/validators.sh     # the validators the tests run, into .tools/bin (no root needed)
# The system tests boot the managers in real systemd (systemd-nspawn), which needs root: as root, the
# container tools and the Debian rootfs they boot, into .cache/ (test/system says so when they are missing).
if [[ $(id -u) -eq 0 ]]; then bash tools/setup/system-rootfs.sh; else echo "not root: skipping the system tests' rootfs (npm run test:system needs root)"; fi
