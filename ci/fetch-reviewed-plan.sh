#!/bin/sh
# Fetches the plan a merge request pipeline saved for a cell, so the default-branch apply job
# can check that its own plan makes the changes that were reviewed (provision --reviewed-plan
# reads this file and compares; it never applies it: the file comes from a job whose code the
# merge request's author controls). Best effort: it always exits 0, and says why when there is
# nothing to fetch.
#
#   sh ci/fetch-reviewed-plan.sh <cell> <destination-dir>
#
# 1. The merge request merged as this commit: GET /projects/:id/repository/commits/:sha/merge_requests,
#    with GITLAB_REVIEW_TOKEN (a job token cannot list merge requests).
# 2. The plan:<cell> job's files in the latest successful pipeline of refs/merge-requests/<iid>/head
#    (GitLab searches the child pipelines too): GET /projects/:id/jobs/artifacts/:ref/raw/<path>?job=plan:<cell>,
#    with CI_JOB_TOKEN. Requires the merge request pipeline to have succeeded and its artifacts to
#    be unexpired (2 weeks).
# Tokens go to curl through its config on stdin: never on a command line or in the log.
set -u

cell="${1:?usage: fetch-reviewed-plan.sh <cell> <destination-dir>}"
dest="${2:?usage: fetch-reviewed-plan.sh <cell> <destination-dir>}"
token_variable="${REVIEW_TOKEN_ENV:-GITLAB_REVIEW_TOKEN}"
review_token="$(printenv "$token_variable" || true)"

say() { echo "fetch-reviewed-plan: $*"; }

if [ -z "${CI_API_V4_URL:-}" ] || [ -z "${CI_PROJECT_ID:-}" ] || [ -z "${CI_COMMIT_SHA:-}" ] || [ -z "${CI_JOB_TOKEN:-}" ]; then
  say "not in a GitLab job (CI_API_V4_URL, CI_PROJECT_ID, CI_COMMIT_SHA, CI_JOB_TOKEN); the cell will be planned again"
  exit 0
fi
if [ -z "$review_token" ]; then
  say "${token_variable} is not set, so the merged merge request cannot be found; the cell will be planned again"
  exit 0
fi

# Redirects are never followed: curl sends a custom header (PRIVATE-TOKEN, JOB-TOKEN) to wherever
# a Location points, another host included (its --location strips only Authorization and Cookie).
# A redirect is reported with its target (origin and path: a query may carry a secret) and fails
# the call. Each call ends within 60 s; a private CA that the runner passes on is trusted.
api() { # api <header-name> <token> <url> <output-file>
  answer="$(
    {
      printf 'header = "%s: %s"\n' "$1" "$2"
      if [ -n "${CI_SERVER_TLS_CA_FILE:-}" ]; then printf 'cacert = "%s"\n' "$CI_SERVER_TLS_CA_FILE"; fi
    } | curl --config - --silent --show-error --max-time 60 --retry 2 --max-redirs 0 \
      --output "$4" --write-out '%{http_code} %{redirect_url}' "$3"
  )" || return 1
  case "$answer" in
    200\ *) return 0 ;;
    3[0-9][0-9]\ *)
      target="${answer#* }"
      say "refused a redirect (${answer%% *}) to ${target%%\?*}: the token is not sent there (a proxy, or CI_API_V4_URL not the instance's API?)"
      ;;
  esac
  rm -f "$4"
  return 1
}

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

if ! api PRIVATE-TOKEN "$review_token" "${CI_API_V4_URL}/projects/${CI_PROJECT_ID}/repository/commits/${CI_COMMIT_SHA}/merge_requests" "$work/mrs.json"; then
  say "could not list the merge requests of ${CI_COMMIT_SHA}; the cell will be planned again"
  exit 0
fi
iid="$(node -e '
  const mrs = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  const merged = Array.isArray(mrs) ? mrs.find((mr) => mr.state === "merged") : undefined;
  if (merged && Number.isInteger(merged.iid)) process.stdout.write(String(merged.iid));
' "$work/mrs.json")"
if [ -z "$iid" ]; then
  say "${CI_COMMIT_SHA} is not the merge of a merge request (a direct push or a web run); the cell will be planned again"
  exit 0
fi

ref="refs%2Fmerge-requests%2F${iid}%2Fhead"
plan_path="plan-out/${cell}/stacks/${cell}/${cell}.tfplan"
mkdir -p "$dest"
for file in "$plan_path" "${plan_path}.inputs.json"; do
  target="$dest/$(basename "$file")"
  if ! api JOB-TOKEN "$CI_JOB_TOKEN" "${CI_API_V4_URL}/projects/${CI_PROJECT_ID}/jobs/artifacts/${ref}/raw/${file}?job=plan:${cell}" "$target"; then
    rm -f "$dest/${cell}.tfplan" "$dest/${cell}.tfplan.inputs.json"
    say "merge request !${iid} has no plan artifact ${file} for ${cell} (pipeline failed, artifacts expired, or the cell was not planned); the cell will be planned again"
    exit 0
  fi
done
say "fetched the plan merge request !${iid} reviewed for ${cell} into ${dest}"
