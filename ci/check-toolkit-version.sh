#!/bin/sh
# Fails when the installed runner-fleet is not the version the pipeline asks for.
#
#   sh <toolkit dir>/ci/check-toolkit-version.sh <expected version | lockfile>
#
# The component's toolkit_version input: "lockfile" trusts whatever package-lock.json pins (npm ci
# installed it); a version makes every job stop before it runs a toolkit that the component's jobs
# were not written for (an include of component@1.3.0 over a lockfile still pinning 1.2.0).
# The version is read from the package.json beside this script, i.e. the toolkit that runs.
set -eu

expected="${1:?usage: check-toolkit-version.sh <version|lockfile>}"
[ "$expected" = "lockfile" ] && exit 0

installed="$(node -p 'require(process.argv[1]).version' "$(cd "$(dirname "$0")/.." && pwd)/package.json")"
if [ "$installed" != "$expected" ]; then
  echo "check-toolkit-version: runner-fleet $installed is installed (from package-lock.json), but the pipeline asks for $expected;" \
    "run \`npm install --save-exact runner-fleet@$expected\` and commit package.json and package-lock.json" >&2
  exit 2
fi
