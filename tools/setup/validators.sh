#!/usr/bin/env bash
# Fetches the validators that the tests run and that only Debian packages provide (shellcheck,
# systemd-analyze, promtool) into .tools/, a git-ignored folder of this clone, with a wrapper for each
# in .tools/bin/, where test/support/validators.ts looks first.
#
# Needs no root: apt runs on private state, cache and lists under .tools/apt (the machine's own apt
# sources, keys and proxy settings still apply), `apt-get download` fetches the packages and `dpkg -x`
# unpacks them under .tools/root. Shared libraries that the machine lacks come along; the wrappers put
# them on LD_LIBRARY_PATH. A second run with the validators in place only checks them: one line.
set -euo pipefail
cd "$(dirname "$0")/../.."

tools="$PWD/.tools"
stamp="$tools/validators.stamp"
validators=(shellcheck systemd-analyze promtool)
# Where each validator sits in its unpacked package.
declare -A binary=([shellcheck]=usr/bin/shellcheck [systemd-analyze]=usr/bin/systemd-analyze [promtool]=usr/bin/promtool)
# Settings a validator needs to work alike on every machine. systemd-analyze verify loads the units a
# unit depends on (sysinit.target, basic.target... by default dependencies): from the fetched systemd
# package first, then the machine's own (the trailing colon), so that a machine without systemd verifies too.
# See systemd.unit(5), "Unit File Load Path": $SYSTEMD_UNIT_PATH.
# shellcheck disable=SC2016 # $root and $SYSTEMD_UNIT_PATH are the wrapper's, expanded when it runs
declare -A settings=([systemd-analyze]='export SYSTEMD_UNIT_PATH="${SYSTEMD_UNIT_PATH-$root/lib/systemd/system:}"')
# The packages to fetch. systemd-analyze runs on libsystemd-shared's private libraries (its RUNPATH), so
# that package comes too, always at the same version as systemd's.
packages=(shellcheck systemd libsystemd-shared prometheus)
# Whose library Depends to follow: systemd's own Depends serve its other programs (cryptsetup, fdisk...),
# and promtool is a static Go binary.
library_roots=(shellcheck libsystemd-shared)

# Written into the stamp: a changed list of validators or packages above fetches again.
recipe=$(sha256sum "$0" | cut -d' ' -f1)

ready() {
  [[ -f $stamp && $(head -n1 "$stamp") == "$recipe" ]] || return 1
  local name
  for name in "${validators[@]}"; do
    "$tools/bin/$name" --version >/dev/null 2>&1 || return 1
  done
}

if ready; then
  echo "validators ready in .tools/bin: $(tail -n +2 "$stamp" | paste -sd, - | sed 's/,/, /g') (delete .tools to fetch them again)"
  exit 0
fi

echo "fetching shellcheck, systemd-analyze and promtool from this machine's apt sources into .tools/ ..."
rm -rf "${tools:?}/root" "${tools:?}/bin" "${tools:?}/debs" "$stamp"
mkdir -p "$tools/apt/state" "$tools/apt/lists/partial" "$tools/apt/cache/archives/partial" "$tools/debs" "$tools/root" "$tools/bin"
: >"$tools/apt/state/status" # an empty package database: apt sees nothing installed, so it never needs the machine's

apt=(
  -o "Dir::State=$tools/apt/state" -o "Dir::State::Lists=$tools/apt/lists"
  -o "Dir::State::status=$tools/apt/state/status" -o "Dir::Cache=$tools/apt/cache"
  -o Debug::NoLocking=1 # private state: no lock shared with the machine's apt, which a non-root user may not take
  -q=2
)
# As root apt downloads as the user _apt, who cannot write into a clone under /root; the files are still
# checked against the signed Release files.
if [[ $(id -u) -eq 0 ]]; then apt+=(-o APT::Sandbox::User=root); fi

apt-get "${apt[@]}" update

# candidates PACKAGE...: "name version" of each package's candidate in the fetched lists.
candidates() { apt-cache "${apt[@]}" show --no-all-versions "$@" | awk '/^Package:/ { p = $2 } /^Version:/ { print p, $2 }'; }
# The machine has the package at exactly that version (dpkg's status is readable by everyone).
installed_at() { [[ $(dpkg-query -W -f='${db:Status-Abbrev}${Version}' "$1" 2>/dev/null) == "ii $2" ]]; }

# Library packages the validators need and the machine lacks (or has at another version), followed
# through their own Depends. libc6 stays the machine's: it comes with the dynamic loader.
fetch=("${packages[@]}")
declare -A seen=([libc6]=1)
queue=("${library_roots[@]}")
while ((${#queue[@]} > 0)); do
  mapfile -t depends < <(apt-cache "${apt[@]}" depends --important "${queue[@]}" |
    awk '$1 ~ /^\|?(Pre)?Depends:$/ && $2 !~ /^</ { print $2 }' | sort -u)
  new=()
  for dep in "${depends[@]}"; do
    [[ $dep == lib* && -z ${seen[$dep]:-} ]] || continue
    seen[$dep]=1
    new+=("$dep")
  done
  queue=()
  ((${#new[@]} > 0)) || break
  while read -r dep version; do
    if ! installed_at "$dep" "$version"; then
      fetch+=("$dep")
      queue+=("$dep")
    fi
  done < <(candidates "${new[@]}")
done

(cd "$tools/debs" && apt-get "${apt[@]}" download "${fetch[@]}")
for deb in "$tools"/debs/*.deb; do dpkg -x "$deb" "$tools/root"; done

# Every folder of the unpacked packages that holds a shared library, for the wrappers' LD_LIBRARY_PATH.
# shellcheck disable=SC2016 # $root is the wrapper's: it finds the clone wherever it has moved
library_path=$(cd "$tools/root" && find . \( -type f -o -type l \) -name 'lib*.so*' -printf '%h\n' | sort -u |
  sed 's|^\./|$root/|' | paste -sd: -)

for name in "${validators[@]}"; do
  {
    echo '#!/bin/sh'
    echo "# Written by tools/setup/validators.sh: $name from its Debian package, unpacked under .tools/root."
    # shellcheck disable=SC2016 # the wrapper's own command substitution
    echo 'root="$(cd "$(dirname "$0")/../root" && pwd)"'
    if [[ -n ${settings[$name]:-} ]]; then echo "${settings[$name]}"; fi
    echo "LD_LIBRARY_PATH=\"$library_path\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}\" exec \"\$root/${binary[$name]}\" \"\$@\""
  } >"$tools/bin/$name"
  chmod +x "$tools/bin/$name"
done

# A library that neither the machine nor the fetched packages provide shows here, not as a test failure.
for name in "${validators[@]}"; do
  missing=$(LD_LIBRARY_PATH=${library_path//\$root/$tools/root} ldd "$tools/root/${binary[$name]}" 2>/dev/null | grep 'not found' || true)
  if [[ -n $missing ]]; then
    echo "tools/setup/validators.sh: $name cannot load: $(echo "$missing" | awk '{ print $1 }' | paste -sd' ' -)" >&2
    exit 1
  fi
  if ! "$tools/bin/$name" --version >/dev/null; then
    echo "tools/setup/validators.sh: .tools/bin/$name --version failed" >&2
    exit 1
  fi
done

{
  echo "$recipe"
  candidates shellcheck systemd prometheus | awk '{ sub(/^systemd$/, "systemd-analyze", $1); sub(/^prometheus$/, "promtool", $1); print $1, $2 }'
} >"$stamp"
echo "validators ready in .tools/bin: $(tail -n +2 "$stamp" | paste -sd, - | sed 's/,/, /g') (${#fetch[@]} packages)"
