#!/usr/bin/env bash
# Rolling back a rollout: opens a merge request that reverts the merged commit this pipeline
# applies, onto the default branch. Nothing is reverted behind the team's back: the revert is
# reviewed like any change (its review shows the waves again) and applies only when merged.
#
#   bash ci/propose-revert.sh [TOKEN_VARIABLE]
#
# Runs as the manual `rollback` job of a rollout's apply child pipeline, in a checkout of
# CI_COMMIT_SHA. A merge commit is reverted against its first parent (`git revert -m 1`: the
# default branch before the merge), a squashed or fast-forwarded commit as it is. Needs a token with
# write_repository in the variable named by its argument (default MODELS_PUSH_TOKEN; masked and
# protected); the merge request is opened with GitLab's push options (merge_request.create,
# doc/topics/git/commit.md "Push options for merge requests"), as ci/propose-generated-model.sh does.
set -euo pipefail
# shellcheck source=ci/push-merge-request.sh
source "$(dirname "${BASH_SOURCE[0]}")/push-merge-request.sh"

token_variable="${1:-MODELS_PUSH_TOKEN}"
if ! [[ "$token_variable" =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]]; then
  echo "propose-revert: the token's variable must be a variable name, got ${token_variable}" >&2
  exit 2
fi
token="${!token_variable:-}"
sha="${CI_COMMIT_SHA:?CI_COMMIT_SHA is required}"
short="${sha:0:8}"
if [ -z "$token" ]; then
  echo "propose-revert: ${token_variable} is not set: revert by hand (GitLab's Revert button on the merged merge request, or git revert -m 1 ${short})" >&2
  exit 1
fi

branch="runner-fleet/revert-${short}"
git checkout --quiet -B "$branch" "$sha"
# `git rev-list --parents -n 1` prints the commit and its parents: three words or more for a merge.
if [ "$(git rev-list --parents -n 1 "$sha" | wc -w)" -gt 2 ]; then mainline=(-m 1); else mainline=(); fi
git -c user.name="runner-fleet pipeline" -c user.email="runner-fleet@${CI_SERVER_HOST:-localhost}" \
  revert --no-edit "${mainline[@]}" "$sha" >/dev/null

push_merge_request "$token" "$branch" "Revert ${short}: roll back the cells its rollout changed"
echo "propose-revert: pushed ${branch} and opened a merge request that reverts ${short}; nothing changes until it is merged"
