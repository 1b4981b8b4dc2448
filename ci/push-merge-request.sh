# shellcheck shell=bash
# Sourced by ci/propose-generated-model.sh and ci/propose-revert.sh: pushes HEAD to a branch of this
# project and opens a merge request onto the default branch with GitLab's push options
# (merge_request.create, doc/topics/git/commit.md "Push options for merge requests").
#
#   push_merge_request TOKEN BRANCH TITLE
#
# The token goes to git through GIT_CONFIG_* environment variables: never on a command line, in a
# remote URL or in the job log. No redirect is followed (http.followRedirects false): the header carries
# the push token and must reach CI_SERVER_URL's origin only.
push_merge_request() {
  local token="$1" branch="$2" title="$3" basic
  basic="$(printf 'oauth2:%s' "$token" | base64 | tr -d '\n')"
  GIT_CONFIG_COUNT=2 GIT_CONFIG_KEY_0="http.extraHeader" GIT_CONFIG_VALUE_0="Authorization: Basic ${basic}" \
    GIT_CONFIG_KEY_1="http.followRedirects" GIT_CONFIG_VALUE_1="false" \
    git push --quiet \
    -o merge_request.create \
    -o "merge_request.target=${CI_DEFAULT_BRANCH:-main}" \
    -o "merge_request.title=${title}" \
    -o merge_request.remove_source_branch \
    "${CI_SERVER_URL:?}/${CI_PROJECT_PATH:?}.git" "HEAD:refs/heads/${branch}"
}
