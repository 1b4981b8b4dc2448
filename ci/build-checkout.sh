#!/bin/sh
# Builds the toolkit when the jobs run it from its own checkout (this repository's pipeline:
# toolkit_dir "."), whose bin/ runs dist/: `npm run build` after `npm ci`, which no longer builds
# (package.json has no `prepare`, which every install of the package would see; `prepack` builds for
# npm pack and publish). An installed runner-fleet (node_modules/runner-fleet) ships dist/ built and has
# no tsconfig.json: nothing to do.
#
#   sh <toolkit dir>/ci/build-checkout.sh
set -eu

dir="$(cd "$(dirname "$0")/.." && pwd)"
[ -f "$dir/tsconfig.json" ] || exit 0
cd "$dir"
npm run build --silent
