#!/bin/sh
# Publishes a packed runner-fleet to this GitLab project's npm registry (the release:npm job of
# ci/release/release.gitlab-ci.yml), with the job's own token.
#
#   sh ci/release/publish-npm.sh <version> <tarball>
#
# GitLab's predefined variables say where: CI_API_V4_URL, CI_PROJECT_ID, CI_JOB_TOKEN. A job token
# may publish to its own project's registry (GitLab docs, "npm packages in the package registry":
# publishing from a pipeline uses the job token, at the project-level endpoint).
#
# - The token goes into an npm config file of this run only (npm's --userconfig), keyed by the
#   registry's address without its scheme as npm expects, and the file is removed on exit: never
#   into the project's .npmrc, an argument (visible in the process list) or the log.
# - A prerelease (1.3.0-rc.1) gets the dist-tag "next": npm refuses to publish a prerelease without a
#   tag, and "latest" (what `npm install runner-fleet` takes) stays the newest release.
set -eu

version="${1:?usage: publish-npm.sh <version> <tarball>}"
tarball="${2:?usage: publish-npm.sh <version> <tarball>}"
: "${CI_API_V4_URL:?CI_API_V4_URL is not set: run this in a GitLab CI job}"
: "${CI_PROJECT_ID:?CI_PROJECT_ID is not set: run this in a GitLab CI job}"
: "${CI_JOB_TOKEN:?CI_JOB_TOKEN is not set: run this in a GitLab CI job}"

[ -f "$tarball" ] || { echo "publish-npm: no package at $tarball (release:check packs it)" >&2; exit 2; }
case "$(basename "$tarball")" in
  "runner-fleet-$version.tgz") ;;
  *) echo "publish-npm: $tarball is not runner-fleet-$version.tgz: refusing to publish another version under tag $version" >&2; exit 2 ;;
esac

# npm reads "release/x.tgz" as a GitHub repository (user/repo); a path must say it is one.
case "$tarball" in
  /* | ./* | ../*) ;;
  *) tarball="./$tarball" ;;
esac

registry="${CI_API_V4_URL%/}/projects/$CI_PROJECT_ID/packages/npm/"
case "$version" in
  *-*) dist_tag="next" ;;
  *) dist_tag="latest" ;;
esac

userconfig="$(mktemp)"
trap 'rm -f "$userconfig"' EXIT
# ${registry#*:} is the address without "https:" ("//gitlab.example.com/api/v4/projects/7/packages/npm/").
printf '%s:_authToken=%s\n' "${registry#*:}" "$CI_JOB_TOKEN" >"$userconfig"

echo "publish-npm: runner-fleet $version to $registry (dist-tag $dist_tag)"
# --update-notifier=false: npm would otherwise ask this registry (with the token) for the package "npm".
npm publish "$tarball" --registry "$registry" --tag "$dist_tag" --userconfig "$userconfig" --update-notifier=false
