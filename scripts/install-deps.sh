#!/usr/bin/env bash
# Installs what muster needs to build and test on Debian 12 (and Ubuntu).
# Idempotent: when every package is already installed it changes nothing and
# does not touch the network.
set -euo pipefail

packages=(build-essential cmake pkg-config clang-14 libclang-rt-14-dev libck-dev libhwloc-dev libomp-dev python3 spin
          python3-matplotlib python3-numpy python3-pytest openmpi-bin libopenmpi-dev
          gcc-aarch64-linux-gnu g++-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user)

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}\n' "$package" 2>/dev/null | grep -q '^install ok installed$'; then
    missing+=("$package")
  fi
done

if [ "${#missing[@]}" -eq 0 ]; then
  echo "install-deps: all of ${packages[*]} are installed"
  exit 0
fi

sudo=()
if [ "$(id -u)" -ne 0 ]; then
  if ! command -v sudo >/dev/null 2>&1; then
    echo "install-deps: need root (or sudo) to install: ${missing[*]}" >&2
    exit 1
  fi
  sudo=(sudo)
fi

export DEBIAN_FRONTEND=noninteractive
echo "install-deps: installing ${missing[*]}"
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
