#!/usr/bin/env bash
# Builds muster four ways and runs every test in each:
#   build          RelWithDebInfo
#   build-tsan     ThreadSanitizer               (MUSTER_SANITIZE=thread, MUSTER_CHECKING=ON)
#   build-asan     AddressSanitizer + UBSan      (MUSTER_SANITIZE=address,undefined,
#                                                 MUSTER_CHECKING=ON: the invariants)
#   build-aarch64  AArch64 cross build, tests run under qemu-user
#   build-fuzz     clang's libFuzzer with ASan+UBSan (MUSTER_FUZZ=ON): each fuzz
#                  target over its seed corpus, then MUSTER_FUZZ_SECONDS of fuzzing
# Build directories are kept, so a re-run is incremental.  Every build is
# tested even when an earlier one fails; the exit status is non-zero if any
# configure, build or test step failed.
#
# usage: scripts/test-all.sh [plain] [tsan] [asan] [aarch64] [fuzz]      (default: all five)
# environment:
#   JOBS                  parallel build and test jobs (default: nproc)
#   MUSTER_TSAN_SCALE     MUSTER_TEST_SCALE for the TSan build
#   MUSTER_ASAN_SCALE     MUSTER_TEST_SCALE for the ASan build
#   MUSTER_AARCH64_SCALE  MUSTER_TEST_SCALE for the AArch64 build (emulated: slow)
#   MUSTER_FUZZ_SECONDS   seconds each fuzz target fuzzes after its corpus (default 20)
#   CTEST_ARGS            extra ctest arguments, e.g. "-R test_env"
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

jobs="${JOBS:-$(nproc 2>/dev/null || echo 2)}"
read -r -a ctest_extra <<<"${CTEST_ARGS:-}"

# Sanitizers stop at the first report, with the stack, and fail the test.
export TSAN_OPTIONS="${TSAN_OPTIONS:-halt_on_error=1 second_deadlock_stack=1 history_size=4}"
export ASAN_OPTIONS="${ASAN_OPTIONS:-halt_on_error=1 abort_on_error=0 detect_leaks=1 detect_stack_use_after_return=1 check_initialization_order=1 strict_init_order=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1 print_stacktrace=1}"

configs=("$@")
if [ "${#configs[@]}" -eq 0 ]; then
  configs=(plain tsan asan aarch64 fuzz)
fi

summaries=()
failed=()

# run_config NAME DIR SCALE [cmake args...]
run_config() {
  local name="$1" dir="$2" scale="$3"
  shift 3
  local log="$dir/test-all.log"
  echo
  echo "==== $name: $dir (MUSTER_TEST_SCALE=$scale) ===="
  local start=$SECONDS
  if ! cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null; then
    echo "$name: configure FAILED (cmake -S . -B $dir $*)"
    failed+=("$name (configure)")
    summaries+=("$name: configure failed")
    return
  fi
  if ! cmake --build "$dir" -j "$jobs" ${build_target:+--target "$build_target"}; then
    echo "$name: build FAILED"
    failed+=("$name (build)")
    summaries+=("$name: build failed")
    return
  fi
  # No set -e here: the pipeline's status is read from PIPESTATUS at once.
  MUSTER_TEST_SCALE="$scale" ctest --test-dir "$dir" --output-on-failure -j "$jobs" \
    "${ctest_extra[@]}" 2>&1 | tee "$log"
  local rc=${PIPESTATUS[0]}
  local summary
  summary="$(grep -E '[0-9]+% tests passed' "$log" | tail -n 1)"
  [ -n "$summary" ] || summary="no ctest summary (ctest exit status $rc)"
  summaries+=("$name: $summary ($((SECONDS - start)) s)")
  if [ "$rc" -ne 0 ]; then
    failed+=("$name (tests)")
  fi
}

build_target="" # all, but for the fuzz build: its targets only
for config in "${configs[@]}"; do
  case "$config" in
    plain) run_config plain build "${MUSTER_TEST_SCALE:-1}" -DMUSTER_SANITIZE= ;;
    tsan) run_config tsan build-tsan "${MUSTER_TSAN_SCALE:-0.3}" -DMUSTER_SANITIZE=thread -DMUSTER_CHECKING=ON ;;
    asan) run_config asan build-asan "${MUSTER_ASAN_SCALE:-0.5}" -DMUSTER_SANITIZE=address,undefined -DMUSTER_CHECKING=ON ;;
    aarch64) run_config aarch64 build-aarch64 "${MUSTER_AARCH64_SCALE:-0.1}" -DMUSTER_SANITIZE= \
               -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake ;;
    fuzz) build_target=fuzzers CC=clang-14 CXX=clang++-14 run_config fuzz build-fuzz 1 -DMUSTER_SANITIZE= \
            -DMUSTER_FUZZ=ON -DMUSTER_FUZZ_SECONDS="${MUSTER_FUZZ_SECONDS:-20}"
          build_target="" ;;
    *)
      echo "test-all: unknown configuration '$config' (plain, tsan, asan, aarch64, fuzz)" >&2
      exit 2
      ;;
  esac
done

echo
echo "==== summary ===="
for line in "${summaries[@]}"; do
  echo "$line"
done
if [ "${#failed[@]}" -ne 0 ]; then
  echo "FAILED: ${failed[*]}"
  exit 1
fi
echo "all passed"
