#!/usr/bin/env bash
# Model-checks one of the sleep/wake protocols with spin: check.sh MODEL, for
# MODEL.pml beside this script.  The protocol as written (and its listed
# variants that are correct too) must have no error; each variant with a
# deliberate bug must have one, of the kind named (a lost wake-up shows as an
# invalid end state, a broken safety property as an assertion), which shows
# the check can fail for the reason it is there.  Each model's header says
# what it models and proves.  Needs spin (Debian package "spin") and a C
# compiler.
set -euo pipefail
if [ $# -ne 1 ]; then
  echo "usage: $0 handshake|mutex|ordered_bell|scheduler_signal|task_count" >&2
  exit 2
fi
model="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/$1.pml"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"

# verify NAME EXPECT [spin -D options...]: EXPECT is "ok", "lost-wake-up"
# (spin's "invalid end state": a process asleep for ever) or "assertion".
verify() {
  local name="$1" expect="$2"
  shift 2
  spin -a "$@" "$model" >/dev/null
  # COLLAPSE: compressed states (the mutex model: 37 M states in 2.4 GB, not 4.4).
  cc -O2 -w -DCOLLAPSE -o pan pan.c
  local out errors found=ok
  out="$(./pan -m100000 2>&1)"
  errors="$(sed -n 's/.*errors: \([0-9]*\).*/\1/p' <<<"$out" | head -n 1)"
  if [ -z "$errors" ]; then
    echo "$name: could not read spin's result"; echo "$out"; return 1
  fi
  if grep -q '^pan:1: invalid end state' <<<"$out"; then
    found=lost-wake-up
  elif grep -q '^pan:1: assertion violated' <<<"$out"; then
    found=assertion
  elif [ "$errors" -gt 0 ]; then
    found=other
  fi
  # A search cut short by the depth limit proves nothing.
  if grep -q 'max search depth too small' <<<"$out"; then
    echo "$name: the search hit the depth limit"; echo "$out"; return 1
  fi
  if [ "$found" = "$expect" ]; then
    echo "$name: errors: $errors, $found as expected ($(grep -o '[0-9]* states, stored' <<<"$out"))"
  else
    echo "$name: errors: $errors ($found), expected $expect"; echo "$out"; return 1
  fi
}

case "$1" in
  handshake) # the wait layer's flag, src/wait/wait.h and wait.c
    verify "handshake" ok
    verify "handshake with abort" ok -DWITH_ABORT
    verify "publisher ignoring SLEEPING (must fail)" lost-wake-up -DBUG_PLAIN_STORE
    verify "waiter announcing without CAS (must fail)" lost-wake-up -DBUG_PLAIN_ANNOUNCE
    ;;
  mutex) # the runtime mutex, a queue lock: src/omp/mutex.h and mutex.c
    verify "mutex" ok
    verify "unlock that never wakes (must fail)" lost-wake-up -DBUG_UNLOCK_NO_WAKE
    verify "promotion that never wakes (must fail)" lost-wake-up -DBUG_PROMOTE_NO_WAKE
    verify "lone head keeping the tail (must fail)" lost-wake-up -DBUG_ALONE_KEEPS_TAIL
    verify "sleeper unannounced (must fail)" lost-wake-up -DBUG_SLEEP_UNANNOUNCED
    verify "woken sleeper retaking without the bit (must fail)" lost-wake-up -DBUG_SLEEPER_RETAKES_PLAIN
    verify "barging with a store (must fail)" assertion -DBUG_BARGE_STORE
    ;;
  ordered_bell) # the ordered turn's doorbells, src/omp/loop.c
    verify "ordered bell" ok
    verify "pass ringing only ahead (must fail)" lost-wake-up -DBUG_NO_RING
    verify "sleeper registered uncounted (must fail)" lost-wake-up -DBUG_UNCOUNTED
    verify "bell read after the turn (must fail)" lost-wake-up -DBUG_BELL_AFTER_CHECK
    ;;
  scheduler_signal) # the task scheduler's sleepers and signal, src/omp/task/scheduler.c
    verify "scheduler signal" ok
    verify "producer reading sleepers before its push (must fail)" lost-wake-up -DBUG_WAKE_BEFORE_PUSH
    verify "member looking before counting itself asleep (must fail)" lost-wake-up -DBUG_LOOK_BEFORE_ANNOUNCE
    verify "finisher reading last-task sleepers first (must fail)" lost-wake-up -DBUG_FINISH_LOAD_FIRST
    ;;
  task_count) # a task count with its sleeper tag (taskwait), src/omp/task/core.h, wait.c
    verify "task count" ok
    verify "finisher ignoring the sleeper tag (must fail)" lost-wake-up -DBUG_FINISH_IGNORES_TAG
    verify "waiter announcing apart from its check (must fail)" lost-wake-up -DBUG_SPLIT_ANNOUNCE
    verify "waiter returning once woken (must fail)" assertion -DBUG_WOKEN_MEANS_DONE
    ;;
  *)
    echo "$0: no model named $1" >&2
    exit 2
    ;;
esac
