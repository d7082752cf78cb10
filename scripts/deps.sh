#!/usr/bin/env bash
# Installs what the tests, benchmarks and demo need on a Debian machine:
# Go modules, and redis-server / redis-sentinel / redis-cli from Debian.
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

command -v go >/dev/null 2>&1 || { echo "deps: Go is not on PATH (need Go 1.26; /usr/local/go/bin?)" >&2; exit 1; }
go mod download
