#!/usr/bin/env bash
# The newcomer's path, checked: clones this repository's HEAD into a temporary folder, hides shellcheck,
# promtool and systemd-analyze from the PATH, and runs the commands of the README's "First run" block
# (set-up, the dry run, the tests) in order. Prints one line per command and exits non-zero on the
# first that fails. Run it as root and as a user without root (give that user a clone of its own).
#
#   bash tools/fresh-machine-check.sh [--keep]     # --keep: leave the temporary folder for a look
#
# What stays on the PATH is the machine's, less those three: node and npm, git, apt-get and dpkg (the
# set-up fetches with them), and terraform with /opt/tf-plugins for the real-engine tests (docs/development/tests.md,
# "Real-engine tests"), which are prerequisites of the machine, not of the set-up.
set -euo pipefail

keep=false
if [[ ${1:-} == --keep ]]; then keep=true; fi

source_repo=$(git -C "$(dirname "$0")/.." rev-parse --show-toplevel)
work=$(mktemp -d "${TMPDIR:-/tmp}/fresh-machine-check.XXXXXX")
trap '[[ $keep == true ]] || rm -rf "$work"' EXIT

hidden=(shellcheck promtool systemd-analyze gitlab-ci-local)

# A PATH like the caller's, where each folder holding one of the hidden validators is replaced by a
# folder of links to everything else in it.
shadow_path=()
IFS=: read -r -a folders <<<"$PATH"
for folder in "${folders[@]}"; do
  [[ -d $folder ]] || continue
  holds=false
  for name in "${hidden[@]}"; do [[ -e $folder/$name ]] && holds=true; done
  if [[ $holds == false ]]; then
    shadow_path+=("$folder")
    continue
  fi
  shadow="$work/path/${#shadow_path[@]}"
  mkdir -p "$shadow"
  for entry in "$folder"/*; do
    name=${entry##*/}
    [[ " ${hidden[*]} " == *" $name "* ]] || ln -s "$entry" "$shadow/$name"
  done
  shadow_path+=("$shadow")
done
fresh_path=$(IFS=:; echo "${shadow_path[*]}")

for name in "${hidden[@]}"; do
  if PATH=$fresh_path command -v "$name" >/dev/null; then
    echo "fresh-machine check: $name is still on the PATH ($(PATH=$fresh_path command -v "$name"))" >&2
    exit 1
  fi
done

git clone --quiet --no-hardlinks "$source_repo" "$work/clone"
echo "fresh-machine check as $(id -un): clone of $(git -C "$work/clone" log -1 --format='%h %s' | cut -c1-70)"
echo "  PATH without ${hidden[*]}; work folder $work"

# The commands of the README's first sh block under "## First run", as a reader copies them.
mapfile -t commands < <(awk '/^## First run/ { section = 1; next } section && /^```sh/ { block = 1; next }
  block && /^```/ { exit } block && NF { print }' "$work/clone/README.md")
if ((${#commands[@]} == 0)); then
  echo "fresh-machine check: no sh block under '## First run' in README.md" >&2
  exit 1
fi

status=0
for index in "${!commands[@]}"; do
  command=${commands[$index]}
  log="$work/step-$index.log"
  started=$SECONDS
  # An empty temporary folder of its own, as on a fresh machine: nothing left there by earlier runs.
  mkdir -p "$work/tmp"
  if (cd "$work/clone" && env -u RUNNER_FLEET_SKIP_REAL_ENGINE PATH="$fresh_path" TMPDIR="$work/tmp" bash -euo pipefail -c "$command") >"$log" 2>&1; then
    outcome=ok
  else
    outcome="FAILED (exit $?)"
    status=1
  fi
  # jest's closing counts, where the command ran the tests.
  counts=$(grep -E '^Tests: ' "$log" | tail -n1 || true)
  label=${command%%#*}
  label=${label%"${label##*[![:space:]]}"}
  printf '  %s: %s in %d s%s\n' "$label" "$outcome" $((SECONDS - started)) "${counts:+; $counts}"
  if [[ $status -ne 0 ]]; then
    echo "--- last lines of its output ($log):"
    tail -n 40 "$log"
    keep=true
    break
  fi
done
exit $status
