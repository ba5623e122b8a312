#!/usr/bin/env bash
# Installs what muster needs to build and test on Debian 12 (and Ubuntu).
# Idempotent: when every package is already installed and the libomp 19
# packages are downloaded (below) it changes nothing and does not touch the
# network.
set -euo pipefail

packages=(build-essential cmake pkg-config clang-14 libclang-rt-14-dev libck-dev libhwloc-dev libomp-dev python3 spin
          python3-matplotlib python3-numpy python3-pytest openmpi-bin libopenmpi-dev
          gcc-aarch64-linux-gnu g++-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user
          gfortran gfortran-aarch64-linux-gnu flang-19)

# flang-19 links LLVM's libomp 19, whose -dev package conflicts with the
# libomp-14-dev the tests compare against: its packages are downloaded here
# (not installed) and the build unpacks them (tests/omp_fortran/flang/).
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
libomp19_debs="$root/.deps/libomp-19"
libomp19_packages=(libomp-19-dev libomp5-19)

have_libomp19_debs() {
  local package
  for package in "${libomp19_packages[@]}"; do
    compgen -G "$libomp19_debs/${package}_*.deb" >/dev/null || return 1
  done
}

download_libomp19_debs() {
  have_libomp19_debs && return 0
  echo "install-deps: downloading ${libomp19_packages[*]} into $libomp19_debs (unpacked by the build, not installed)"
  mkdir -p "$libomp19_debs"
  # apt-get download writes into the current directory; as root it warns
  # that _apt cannot write there, which is harmless.
  if ! (cd "$libomp19_debs" && apt-get download "${libomp19_packages[@]}"); then
    echo "install-deps: apt-get download failed; updating the package lists and trying again"
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update
    (cd "$libomp19_debs" && apt-get download "${libomp19_packages[@]}")
  fi
}

sudo=()
if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1; then
  sudo=(sudo)
fi

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}\n' "$package" 2>/dev/null | grep -q '^install ok installed$'; then
    missing+=("$package")
  fi
done

if [ "${#missing[@]}" -eq 0 ]; then
  echo "install-deps: all of ${packages[*]} are installed"
  download_libomp19_debs
  exit 0
fi

if [ "$(id -u)" -ne 0 ] && [ "${#sudo[@]}" -eq 0 ]; then
  echo "install-deps: need root (or sudo) to install: ${missing[*]}" >&2
  exit 1
fi

export DEBIAN_FRONTEND=noninteractive
echo "install-deps: installing ${missing[*]}"
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
download_libomp19_debs
