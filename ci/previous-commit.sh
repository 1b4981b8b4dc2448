#!/bin/sh
# Prints the commit a default-branch pipeline compares with: the branch tip
# before this push ($CI_COMMIT_BEFORE_SHA), or HEAD~1 when GitLab gives none
# (all zeros for a new branch, a web or scheduled pipeline) or the checkout lacks it.
set -eu

before="${CI_COMMIT_BEFORE_SHA:-}"
if [ -n "$before" ] && [ "$before" != "0000000000000000000000000000000000000000" ] &&
  git cat-file -e "${before}^{commit}" 2>/dev/null; then
  echo "$before"
elif git rev-parse --verify --quiet "HEAD~1^{commit}"; then
  :
else
  echo "previous-commit: HEAD has no parent in this checkout (set GIT_DEPTH: \"0\", or run the pipeline with APPLY_ALL_CELLS=true)" >&2
  exit 1
fi
