#!/usr/bin/env bash
# Installs what the tests, benchmarks and demo need on a Debian machine:
# Go modules, redis-server / redis-sentinel / redis-cli from Debian, and
# valkey-server / valkey-sentinel / valkey-cli from Debian bookworm-backports.
# Exits non-zero with a clear message when something cannot be installed.
set -euo pipefail

need=()
command -v redis-server   >/dev/null 2>&1 || need+=(redis-server)
command -v redis-sentinel >/dev/null 2>&1 || need+=(redis-sentinel)
command -v redis-cli      >/dev/null 2>&1 || need+=(redis-tools)
# redis-benchmark ships in redis-tools too.
command -v redis-benchmark >/dev/null 2>&1 || need+=(redis-tools)
# The fault lab (internal/faultlab/netlab): network namespaces, nftables, mounts.
have() { command -v "$1" >/dev/null 2>&1 || [ -x "/usr/sbin/$1" ] || [ -x "/sbin/$1" ]; }
have ip      || need+=(iproute2)
have nft     || need+=(nftables)
for b in unshare nsenter prlimit mount; do have "$b" || need+=(util-linux); done

if [ ${#need[@]} -gt 0 ]; then
  # de-duplicate
  pkgs=$(printf '%s\n' "${need[@]}" | sort -u | tr '\n' ' ')
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
      sudo="sudo -n"
    else
      echo "deps: missing Debian packages: $pkgs" >&2
      echo "deps: not root and no password-less sudo; install them with:" >&2
      echo "      sudo apt-get install -y $pkgs" >&2
      exit 1
    fi
  fi
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "deps: missing $pkgs and apt-get is not available; install Redis 7 (redis-server, redis-sentinel, redis-cli, redis-benchmark) by hand" >&2
    exit 1
  fi
  echo "deps: installing $pkgs via apt-get" >&2
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq >/dev/null || { echo "deps: apt-get update failed" >&2; exit 1; }
  # shellcheck disable=SC2086
  $sudo apt-get install -y -qq $pkgs >/dev/null \
    || { echo "deps: apt-get install $pkgs failed" >&2; exit 1; }
  # The Debian packages start system services on 6379/26379; the tests never
  # use fixed ports, but stop them so they do not eat CPU during benchmarks.
  if command -v systemctl >/dev/null 2>&1; then
    $sudo systemctl stop redis-server redis-sentinel >/dev/null 2>&1 || true
  fi
fi

for b in redis-server redis-sentinel redis-cli redis-benchmark; do
  command -v "$b" >/dev/null 2>&1 || { echo "deps: $b still missing after install" >&2; exit 1; }
done

# Valkey 8.0.x (valkey-server, valkey-sentinel, valkey-cli) for the conformance
# and interop cases that run Valkey beside Redis. Debian ships it in the
# bookworm-backports suite, served by the same registry as the main suite:
# the suite is added with the URIs and Signed-By of the existing entry.
vneed=()
command -v valkey-server   >/dev/null 2>&1 || vneed+=(valkey-server)
command -v valkey-sentinel >/dev/null 2>&1 || vneed+=(valkey-sentinel)
command -v valkey-cli      >/dev/null 2>&1 || vneed+=(valkey-tools)
if [ ${#vneed[@]} -gt 0 ]; then
  vpkgs="valkey-server valkey-sentinel valkey-tools"
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
      sudo="sudo -n"
    else
      echo "deps: missing Debian packages: ${vneed[*]}" >&2
      echo "deps: not root and no password-less sudo; add the bookworm-backports suite and run:" >&2
      echo "      sudo apt-get install -y -t bookworm-backports $vpkgs" >&2
      exit 1
    fi
  fi
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "deps: missing ${vneed[*]} and apt-get is not available; install Valkey 8.0 (valkey-server, valkey-sentinel, valkey-cli) by hand" >&2
    exit 1
  fi
  bp=/etc/apt/sources.list.d/debian-backports.sources
  if ! grep -rqs 'bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/; then
    src=/etc/apt/sources.list.d/debian.sources
    uris="" signed=""
    if [ -f "$src" ]; then
      # The first stanza whose Suites include plain "bookworm" (not -security).
      read -r uris signed < <(awk '
        /^[[:space:]]*$/ { if (ok && u != "") { print u, s; exit } u=""; s=""; ok=0; next }
        /^URIs:/      { u=$2 }
        /^Signed-By:/ { s=$2 }
        /^Suites:/    { for (i = 2; i <= NF; i++) if ($i == "bookworm") ok=1 }
        END { if (ok && u != "") print u, s }' "$src") || true
    fi
    [ -n "$uris" ] || uris=http://deb.debian.org/debian
    [ -n "$signed" ] || signed=/usr/share/keyrings/debian-archive-keyring.gpg
    echo "deps: adding Debian bookworm-backports ($uris) to $bp" >&2
    printf 'Types: deb\nURIs: %s\nSuites: bookworm-backports\nComponents: main\nSigned-By: %s\n' \
      "$uris" "$signed" | $sudo tee "$bp" >/dev/null \
      || { echo "deps: cannot write $bp" >&2; exit 1; }
  fi
  echo "deps: installing $vpkgs from bookworm-backports via apt-get" >&2
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq >/dev/null || { echo "deps: apt-get update failed" >&2; exit 1; }
  # shellcheck disable=SC2086
  $sudo apt-get install -y -qq -t bookworm-backports $vpkgs >/dev/null \
    || { echo "deps: apt-get install -t bookworm-backports $vpkgs failed" >&2; exit 1; }
  # Like redis above: the packages start services on 6379/26379; stop them.
  if command -v systemctl >/dev/null 2>&1; then
    $sudo systemctl stop valkey-server valkey-sentinel >/dev/null 2>&1 || true
  fi
  if command -v service >/dev/null 2>&1; then
    $sudo service valkey-server stop >/dev/null 2>&1 || true
    $sudo service valkey-sentinel stop >/dev/null 2>&1 || true
  fi
fi
for b in valkey-server valkey-sentinel valkey-cli; do
  command -v "$b" >/dev/null 2>&1 || { echo "deps: $b still missing after install" >&2; exit 1; }
done

command -v go >/dev/null 2>&1 || { echo "deps: Go is not on PATH (need Go 1.26; /usr/local/go/bin?)" >&2; exit 1; }
go mod download
