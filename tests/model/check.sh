#!/usr/bin/env bash
# Model-checks the sleep handshake (handshake.pml) with spin: the protocol as
# written, and with a concurrent abort, must have no error; the variant with a
# deliberate bug (a publisher that ignores SLEEPING) must have one, which shows
# the check can fail.  Needs spin (Debian package "spin") and a C compiler.
set -euo pipefail
model="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/handshake.pml"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"

# verify NAME EXPECT [spin -D options...]: EXPECT is "ok" or "error".
verify() {
  local name="$1" expect="$2"
  shift 2
  spin -a "$@" "$model" >/dev/null
  cc -O2 -w -o pan pan.c
  local out errors
  out="$(./pan -m100000 2>&1)"
  errors="$(sed -n 's/.*errors: \([0-9]*\).*/\1/p' <<<"$out" | head -n 1)"
  if [ -z "$errors" ]; then
    echo "$name: could not read spin's result"; echo "$out"; return 1
  fi
  if { [ "$expect" = ok ] && [ "$errors" -eq 0 ]; } || { [ "$expect" = error ] && [ "$errors" -gt 0 ]; }; then
    echo "$name: errors: $errors, as expected ($(grep -o '[0-9]* states, stored' <<<"$out"))"
  else
    echo "$name: errors: $errors, expected $expect"; echo "$out"; return 1
  fi
}

verify "handshake" ok
verify "handshake with abort" ok -DWITH_ABORT
verify "publisher ignoring SLEEPING (must fail)" error -DBUG_PLAIN_STORE
verify "waiter announcing without CAS (must fail)" error -DBUG_PLAIN_ANNOUNCE
