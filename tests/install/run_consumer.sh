#!/usr/bin/env bash
# Installs the build tree into a fresh prefix and builds programs against it
# the two ways a user would: a CMake project (find_package(muster):
# muster::muster, muster::static, muster::omp) and pkg-config (muster,
# muster-omp); runs each.  Fails on the first step that fails.
#
# usage: run_consumer.sh BUILD_DIR SOURCE_DIR WORK_DIR
set -euo pipefail
build="$1" source="$2" work="$3"
rm -rf "$work"
mkdir -p "$work"
prefix="$work/prefix"
step() { echo "== $*"; }

step install
cmake --install "$build" --prefix "$prefix" >"$work/install.log"
for f in include/muster/barrier.h include/muster/barrier.hpp lib/pkgconfig/muster.pc lib/pkgconfig/muster-omp.pc \
         lib/cmake/muster/muster-config.cmake bin/muster; do
  test -e "$prefix/$f" || { echo "not installed: $f"; exit 1; }
done
libdir="$(dirname "$(find "$prefix" -name 'libmuster.so' | head -1)")"

step "CMake consumer (find_package)"
cmake -S "$source/tests/install" -B "$work/cmake" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release \
      >"$work/configure.log"
cmake --build "$work/cmake" >"$work/build.log"
for prog in consumer consumer_static consumer_cpp omp_consumer; do
  "$work/cmake/$prog"
done
if ldd "$work/cmake/consumer_static" | grep -q libmuster; then
  echo "consumer_static: linked libmuster dynamically"; exit 1
fi

step "pkg-config consumer"
export PKG_CONFIG_PATH="$libdir/pkgconfig"
cc -o "$work/consumer_pc" "$source/tests/install/consumer.c" $(pkg-config --cflags --libs muster) -ldl
LD_LIBRARY_PATH="$libdir" "$work/consumer_pc"
cc -o "$work/omp_consumer_pc" "$source/tests/install/omp_consumer.c" $(pkg-config --libs muster-omp) -fopenmp -ldl
LD_LIBRARY_PATH="$libdir" "$work/omp_consumer_pc"

step "the installed command"
"$prefix/bin/muster" --version
echo "run_consumer: ok"
