#!/usr/bin/env bash
# Installs what building spmv-reorder needs on a fresh Debian machine with Rust, and nothing when it is
# already there: the hwloc C library (for hwlocality), libudev (pkg-config --static asks for it) and
# pkg-config. Safe to run again.
set -euo pipefail
need=()
for pkg in libhwloc-dev libudev-dev pkg-config; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || need+=("$pkg")
done
if [ ${#need[@]} -gt 0 ]; then
  echo "setup: installing ${need[*]}" >&2
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${need[@]}" >/dev/null
fi
