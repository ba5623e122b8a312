#!/usr/bin/env bash
# The prepared many-core run (issue #29): every lent minute counts.
#
#   scripts/manycore.sh pack [--bots DIR] [--out DIR] [--build DIR]
#       on the development machine: packs what build/ (or --build) holds (syncbench and
#       taskbench built by gcc and by clang, relax, the muster command,
#       libmuster-omp) with the peers' runtimes and the libraries they need
#       beyond the C library (a lent machine has no Debian packages and no
#       network) into DIR (default manycore-bundle/, ignored by git; carry it
#       to the lent machine).  With --bots, a checkout of the Barcelona
#       OpenMP Tasks Suite: its programs built by gcc and clang
#       (scripts/bots.py's build), and its knapsack, which its Makefiles do
#       not build, in every variant.  Refuses to pack over 64 MiB.
#
#   bash manycore-bundle/run.sh [--quick] [--budget S] [--out DIR]
#       on the lent machine, in one call: machine facts, `muster probe` and
#       the barrier floor it implies (`muster model cost`),
#       the constructs (`muster bench omp`, gcc build) at 4, 8, 16 and 2x the
#       CPUs, the task workloads (`muster bench tasks`) at 1, 4, 8, 16 (gcc)
#       and 8, 16 (clang), one run of each with muster's per-member task
#       statistics at 16, the BOTS knapsack at 16, 8, 2 and 1 threads and
#       the packed BOTS programs at 16, each interleaved over the runtimes,
#       with the worst run beside the median and CPU time beside wall time;
#       and 2 and 4 copies of relax started together against one after the
#       other (co-running load), and relax beside a busy loop per CPU.
#       Writes DIR/report.txt and DIR/report.json (DIR: $OUT, else
#       ./manycore-report).  Sections are skipped, with a line saying so,
#       once --budget seconds (default 450) have passed.  --quick: one round
#       and small team sizes, to try the bundle here.
#
# The figures belong in docs/results/ with the machine named (README: many
# cores).  Nothing here runs in CI.
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

die() {
  echo "manycore: $*" >&2
  exit 1
}

# ---------------------------------------------------------------- pack ----

# copy_with_libs FILE DESTDIR LIBDIR: FILE into DESTDIR, and every shared
# library it needs (ldd) into LIBDIR, but the C library's own, which the
# lent machine has and which must match its loader.
copy_with_libs() {
  local file=$1 dest=$2 libdir=$3
  cp -L "$file" "$dest/" || die "cannot copy $file"
  ldd "$file" | awk '/=> \// {print $3}' | while read -r lib; do
    case "$(basename "$lib")" in
      libc.so.* | libm.so.* | libpthread.so.* | libdl.so.* | librt.so.* | ld-linux*) ;;
      *) [ -e "$libdir/$(basename "$lib")" ] || cp -L "$lib" "$libdir/" ;;
    esac
  done
}

# The BOTS knapsack in its four variants (no cut-off, if cut-off, manual
# cut-off; each tied and untied), by COMPILER, into DIR.
build_knapsack() {
  local src=$1 compiler=$2 dir=$3 tag=${2%%-*}
  local work
  work=$(mktemp -d)
  sed 's/untied//g' "$src/omp-tasks/knapsack/knapsack.c" >"$work/tied-knapsack.c"
  cp "$src/omp-tasks/knapsack/knapsack.c" "$src/omp-tasks/knapsack/app-desc.h" "$work/"
  local info=(-DCDATE='"-"' -DCC="\"$compiler\"" -DLD="\"$compiler\"" -DCMESSAGE='"-"' -DLDFLAGS='"-"' -DCFLAGS='"-O2"')
  (
    cd "$work" || exit 1
    "$compiler" -O2 -fopenmp -w -I"$src/common" -c "$src/common/bots_common.c" -o common.o || exit 1
    for v in plain: if:-DIF_CUTOFF manual:-DMANUAL_CUTOFF; do
      local name=${v%%:*} flag=${v#*:}
      "$compiler" -O2 -fopenmp -w -I"$src/common" -I. $flag "${info[@]}" -c "$src/common/bots_main.c" -o main.o || exit 1
      for body in knapsack tied-knapsack; do
        local suffix=""
        [ "$body" = tied-knapsack ] && suffix=-tied
        "$compiler" -O2 -fopenmp -w -I"$src/common" -I. $flag -c "$body.c" -o k.o || exit 1
        "$compiler" -fopenmp main.o common.o k.o -lm -o "$dir/knapsack.$tag.$name$suffix" || exit 1
      done
    done
  ) || die "building the BOTS knapsack with $compiler failed (in $work)"
  rm -rf "$work"
}

pack() {
  local bots="" out="manycore-bundle" build=""
  while [ $# -gt 0 ]; do
    case $1 in
      --bots) bots=${2:?--bots needs a BOTS checkout}; shift 2 ;;
      --out) out=${2:?--out needs a folder}; shift 2 ;;
      --build) build=${2:?--build needs a build folder}; shift 2 ;;
      -h | --help) sed -n '2,30p' "$0"; exit 0 ;;
      *) die "pack: unknown argument '$1' (see --help)" ;;
    esac
  done
  local root
  root="$(cd "$here/.." && pwd)"
  build=${build:-$root/build}
  for f in tools/muster libmuster-omp.so.0.1.0 bench/omp/syncbench bench/omp/taskbench; do
    [ -e "$build/$f" ] || die "$build/$f is missing: build first (README: cmake -S . -B build && cmake --build build)"
  done
  [ -z "$bots" ] || [ -d "$bots/omp-tasks" ] || die "--bots $bots: not a BOTS checkout (no omp-tasks/)"
  [ -z "$bots" ] || bots=$(realpath "$bots")
  out=$(realpath -m "$out")
  rm -rf "$out"
  mkdir -p "$out/bin" "$out/lib" || die "cannot create $out"
  copy_with_libs "$build/tools/muster" "$out/bin" "$out/lib"
  copy_with_libs "$build/libmuster-omp.so.0.1.0" "$out/lib" "$out/lib"
  for b in syncbench taskbench syncbench-clang taskbench-clang relax; do
    if [ -e "$build/bench/omp/$b" ]; then
      copy_with_libs "$build/bench/omp/$b" "$out/bin" "$out/lib"
    else
      echo "manycore: no $b in build/ (clang-14 missing?): its rows are left out" >&2
    fi
  done
  # Both peers, whether or not a packed program needs them: the runner preloads them.
  for lib in /usr/lib/x86_64-linux-gnu/libgomp.so.1 /usr/lib/llvm-14/lib/libomp.so.5; do
    [ -e "$lib" ] || die "$lib is missing: scripts/install-deps.sh installs it"
    [ -e "$out/lib/$(basename "$lib")" ] || cp -L "$lib" "$out/lib/"
  done
  if [ -n "$bots" ]; then
    mkdir -p "$out/bots/bin" "$out/bots/knapsack"
    cp -r "$bots/inputs" "$out/bots/inputs"
    for compiler in gcc clang-14; do
      command -v "$compiler" >/dev/null || { echo "manycore: no $compiler: its BOTS builds are left out" >&2; continue; }
      build_knapsack "$bots" "$compiler" "$out/bots/knapsack"
    done
    # The suite's own programs and their --perf arguments (scripts/bots.py).
    python3 - "$root" "$bots" "$out" <<'EOF' || die "building BOTS failed (see above)"
import os, shutil, sys
root, source, out = sys.argv[1:4]
sys.path.insert(0, os.path.join(root, "scripts"))
import bots
with open(os.path.join(out, "bots", "programs.txt"), "w") as listing:
    for compiler in ("gcc", "clang"):
        bindir = bots.build(os.path.abspath(source), "/tmp/muster-bots", compiler)
        for name in bots.binaries(bindir, None):
            if "tied" in name:
                continue
            args = bots.args_for(name, bots.PERF_ARGS, "INPUTS")
            if args is None:
                continue
            shutil.copy(os.path.join(bindir, name), os.path.join(out, "bots", "bin", name))
            listing.write(f"{compiler} {name} {' '.join(args)}\n")
EOF
  fi
  cp "$0" "$out/run.sh"
  chmod +x "$out/run.sh"
  local size
  size=$(du -sm "$out" | cut -f1)
  [ "$size" -le 64 ] || die "the bundle is ${size} MiB, over the 64 MiB a lent machine takes"
  echo "manycore: packed $out (${size} MiB): carry it (run: carry [\"$(basename "$out")\"]), then run 'bash $(basename "$out")/run.sh' from the repository root there"
}

# ----------------------------------------------------------------- run ----

B="" OUTDIR="" QUICK=0 BUDGET=450 START=$SECONDS
REPORT="" JSON_PARTS=()

say() { echo "$*" | tee -a "$REPORT"; }
over_budget() { [ $((SECONDS - START)) -ge "$BUDGET" ]; }
section() {
  say ""
  say "== $1 ($((SECONDS - START)) s into the run)"
}
skip_if_late() {
  if over_budget; then
    say "skipped: the budget of $BUDGET s is spent"
    return 0
  fi
  return 1
}

# json_string TEXT: TEXT as a JSON string.
json_string() {
  local s=${1//\\/\\\\}
  s=${s//\"/\\\"}
  printf '"%s"' "${s//$'\n'/\\n}"
}

machine_facts() {
  section "machine"
  local model cpus
  model=$(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo 2>/dev/null)
  cpus=$(nproc)
  say "date $(date -u +%Y-%m-%dT%H:%MZ); $(uname -sr); $cpus CPUs available of $(nproc --all); ${model:-unknown model}"
  say "bundle: $B"
  JSON_PARTS+=("\"machine\": {\"cpus\": $cpus, \"cpus_all\": $(nproc --all), \"model\": $(json_string "${model:-unknown}"), \"date\": $(json_string "$(date -u +%FT%TZ)")}")
}

probe() {
  section "core-to-core latency (muster probe)"
  skip_if_late && return
  local k=15
  [ $QUICK = 1 ] && k=3
  "$B/bin/muster" probe --repetitions $k --output "$OUTDIR/probe.json" 2>"$OUTDIR/probe.err" | tee -a "$REPORT"
  [ -s "$OUTDIR/probe.json" ] || return
  JSON_PARTS+=("\"probe\": $(cat "$OUTDIR/probe.json")")
  # The floor a barrier can reach here (hops on the critical path times
  # their latency, Gao et al.'s model): what BARRIER and PARALLEL are held to.
  section "the barrier's floor on this machine (muster model cost, every CPU)"
  "$B/bin/muster" model cost --machine "$OUTDIR/probe.json" 2>&1 | grep -v '^ *[0-9]* *[0-9]* *[0-9.]*$' |
    tee "$OUTDIR/floor.txt" | tee -a "$REPORT"
  JSON_PARTS+=("\"floor\": $(json_string "$(cat "$OUTDIR/floor.txt")")")
}

constructs() {
  section "OpenMP constructs, gcc build (muster bench omp; us per construct)"
  skip_if_late && return
  local cpus threads reps=3
  cpus=$(nproc)
  threads="4,8,16,$((2 * cpus))"
  [ "$cpus" -lt 16 ] && threads="$((cpus > 1 ? cpus / 2 : 1)),$cpus,$((2 * cpus))"
  [ $QUICK = 1 ] && { threads="2,3"; reps=1; }
  "$B/bin/muster" bench omp --compilers gcc --threads "$threads" --reps $reps --target-ms 10 --timeout 10 \
    2>"$OUTDIR/omp.err" | tee "$OUTDIR/constructs.txt" | tee -a "$REPORT"
  JSON_PARTS+=("\"constructs_table\": $(json_string "$(cat "$OUTDIR/constructs.txt")")")
}

tasks() {
  section "task workloads (muster bench tasks; ms per run)"
  skip_if_late && return
  local threads="1,4,8,16" clang_threads="8,16" reps=3
  [ "$(nproc)" -lt 16 ] && { threads="1,$(nproc)"; clang_threads="$(nproc)"; }
  [ $QUICK = 1 ] && { threads="1,3"; clang_threads="3"; reps=1; }
  "$B/bin/muster" bench tasks --compilers gcc --threads "$threads" --reps $reps --timeout 20 \
    2>"$OUTDIR/tasks.err" | tee "$OUTDIR/tasks.txt" | tee -a "$REPORT"
  JSON_PARTS+=("\"tasks_table\": $(json_string "$(cat "$OUTDIR/tasks.txt")")")
  skip_if_late && return
  if [ -e "$B/bin/taskbench-clang" ]; then
    "$B/bin/muster" bench tasks --compilers clang --threads "$clang_threads" --reps $reps --timeout 20 \
      2>"$OUTDIR/tasks-clang.err" | tee "$OUTDIR/tasks-clang.txt" | tee -a "$REPORT"
    JSON_PARTS+=("\"tasks_clang_table\": $(json_string "$(cat "$OUTDIR/tasks-clang.txt")")")
  fi
}

# What waiting costs in CPU at this machine's size: muster compare on the
# bundled kernel with 10 ms of serial work after each short region, and
# with a 1 s serial tail (wall and CPU seconds per runtime; the answers
# checked).
waiting_cpu() {
  section "what waiting costs in CPU (muster compare on relax; wall and CPU seconds)"
  skip_if_late && return
  [ -x "$B/bin/relax" ] || { say "skipped: no relax in the bundle"; return; }
  local threads rounds=3 args
  threads=$(nproc)
  [ $QUICK = 1 ] && { threads=2; rounds=1; }
  for args in "--sweeps 100 --serial-us 10000" "--sweeps 500 --tail-ms 1000"; do
    skip_if_late && return
    say "-- relax $args"
    # shellcheck disable=SC2086 # the arguments are meant to split
    "$B/bin/muster" compare --rounds $rounds --threads "$threads" --figure 'checksum = (\S+)' -- "$B/bin/relax" $args \
      2>>"$OUTDIR/compare.err" | sed -n '/thread/,$p' | tee -a "$OUTDIR/waiting.txt" | tee -a "$REPORT"
  done
  JSON_PARTS+=("\"waiting_cpu_table\": $(json_string "$(cat "$OUTDIR/waiting.txt" 2>/dev/null)")")
}

# Load muster does not own (issue #31 item 5): N copies of relax started
# together, each with a thread per CPU, against the same N one after the
# other, per runtime.  A runtime whose waiters compete with the other
# process for the CPUs takes many times longer together.
co_running() {
  section "co-running processes (relax, each with every CPU's thread; muster-nowatch: MUSTER_LOAD_WATCH=0): wall seconds one after the other / together, and together's CPU seconds"
  skip_if_late && return
  [ -x "$B/bin/relax" ] || { say "skipped: no relax in the bundle"; return; }
  local threads n rt sweeps=10000 limit=15 counts="2 4"
  threads=$(nproc)
  [ $QUICK = 1 ] && { sweeps=2000; counts=2; }
  say "$(printf '%-10s %3s %3s %10s %10s %8s %9s' runtime n thr sequential together ratio cpu_s)"
  for n in $counts; do
    for rt in libgomp libomp muster muster-nowatch; do
      skip_if_late && return
      local preload="" i t0 t1 t2 ok=1 times watch=1
      case $rt in
        libomp) preload="$B/lib/libomp.so.5" ;;
        muster) preload="$B/lib/libmuster-omp.so.0.1.0" ;;
        muster-nowatch) preload="$B/lib/libmuster-omp.so.0.1.0" watch=0 ;; # the load watch off
      esac
      t0=$(date +%s.%N)
      for ((i = 0; i < n; i++)); do
        env OMP_NUM_THREADS="$threads" MUSTER_LOAD_WATCH=$watch ${preload:+LD_PRELOAD=$preload} timeout $limit "$B/bin/relax" --sweeps $sweeps >/dev/null 2>&1 || ok=0
      done
      t1=$(date +%s.%N)
      times=$(
        TIMEFORMAT='%U %S'
        { time {
          for ((i = 0; i < n; i++)); do
            env OMP_NUM_THREADS="$threads" MUSTER_LOAD_WATCH=$watch ${preload:+LD_PRELOAD=$preload} timeout $limit "$B/bin/relax" --sweeps $sweeps >/dev/null 2>&1 &
          done
          wait
        }; } 2>&1
      )
      t2=$(date +%s.%N)
      local line
      line=$(awk -v a="$t0" -v b="$t1" -v c="$t2" -v cpu="$times" -v rt="$rt" -v n="$n" -v th="$threads" -v ok=$ok \
        'BEGIN {split(cpu, u, " "); printf "%-10s %3d %3d %10.3f %10.3f %7.2fx %9.2f%s", rt, n, th, b - a, c - b, (c - b) / (b - a), u[1] + u[2], ok ? "" : " (a run failed or timed out)"}')
      say "$line"
      JSON_RUNS+=("{\"program\": \"co-running relax x$n\", \"runtime\": \"$rt\", \"threads\": $threads, \"sequential_s\": $(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f", b - a}'), \"together_s\": $(awk -v b="$t1" -v c="$t2" 'BEGIN {printf "%.3f", c - b}')}")
    done
  done
}

# Processes that never wait beside the run (a build, say): one busy shell
# loop per CPU, and relax with a thread per CPU and with half as many again
# (an oversubscribed team, whose waiters yield to team-mates unless yields
# prove costly: wait/load.h).  Wall and CPU seconds of relax, and the busy
# loops' count of iterations (their share of the CPUs).
busy_neighbours() {
  section "beside busy loops (a counting shell loop per CPU): relax --sweeps N, wall and CPU seconds; the loops' iterations, thousands"
  skip_if_late && return
  [ -x "$B/bin/relax" ] || { say "skipped: no relax in the bundle"; return; }
  local cpus th rt sweeps=2000 limit=20 tmp
  cpus=$(nproc)
  [ $QUICK = 1 ] && sweeps=300
  tmp=$(mktemp -d)
  say "$(printf '%-8s %4s %9s %7s %10s' runtime thr wall_s cpu_s loops_k)"
  for th in "$cpus" $((cpus * 3 / 2)); do
    for rt in libgomp libomp muster; do
      skip_if_late && { rm -rf "$tmp"; return; }
      local preload="" pids=() i t0 t1 times ok=1
      case $rt in
        libomp) preload="$B/lib/libomp.so.5" ;;
        muster) preload="$B/lib/libmuster-omp.so.0.1.0" ;;
      esac
      for ((i = 0; i < cpus; i++)); do
        sh -c 'n=0; trap "echo \$n > '"$tmp"'/loop.\$\$; exit" TERM; while :; do n=$((n + 1)); done' &
        pids+=($!)
      done
      sleep 0.3
      t0=$(date +%s.%N)
      times=$(
        TIMEFORMAT='%U %S'
        { time env OMP_NUM_THREADS="$th" ${preload:+LD_PRELOAD=$preload} timeout $limit "$B/bin/relax" \
            --sweeps $sweeps >/dev/null 2>&1; } 2>&1
      ) || ok=0
      t1=$(date +%s.%N)
      kill -TERM "${pids[@]}" 2>/dev/null
      wait "${pids[@]}" 2>/dev/null
      local loops
      loops=$(cat "$tmp"/loop.* 2>/dev/null | awk '{s += $1} END {printf "%.0f", s / 1000}')
      rm -f "$tmp"/loop.*
      say "$(awk -v a="$t0" -v b="$t1" -v cpu="$times" -v rt="$rt" -v th="$th" -v l="$loops" -v ok=$ok \
        'BEGIN {split(cpu, u, " "); printf "%-8s %4d %9.3f %7.2f %10s%s", rt, th, b - a, u[1] + u[2], l, ok ? "" : " (failed or timed out)"}')"
    done
  done
  rm -rf "$tmp"
}

# Why a task workload takes what it takes on muster: one run of each at the
# largest team with MUSTER_OMP_TASK_STATS=1 (per member: tasks run, steals,
# steal rounds that found nothing, deepest deque, idle time).
task_stats() {
  local threads=16
  [ "$(nproc)" -lt 16 ] && threads=$(nproc)
  [ $QUICK = 1 ] && threads=3
  section "task statistics per member, muster, $threads threads (MUSTER_OMP_TASK_STATS=1)"
  skip_if_late && return
  local w
  for w in fib fib-nocut nqueens mergesort sparselu uts knapsack knapsack-last depfan; do
    skip_if_late && return
    say "-- $w"
    MUSTER_OMP_TASK_STATS=1 LD_PRELOAD="$B/lib/libmuster-omp.so.0.1.0" timeout 30 "$B/bin/taskbench" --workload "$w" \
      --threads "$threads" 2>&1 | grep -E "^workload=|libmuster-omp: tasks" | tee -a "$REPORT"
  done
}

# time_program SECONDS_LIMIT RUNTIME THREADS COMMAND...: one run; prints
# "wall user sys program_seconds" ("program_seconds": the program's own
# "Time Program", or - ; a run past the limit or failing prints its wall
# time and "timeout" or "failed").
time_program() {
  local limit=$1 runtime=$2 threads=$3
  shift 3
  local preload=""
  case $runtime in
    libomp) preload="$B/lib/libomp.so.5" ;;
    muster) preload="$B/lib/libmuster-omp.so.0.1.0" ;;
  esac
  local out times rc
  out=$(mktemp)
  times=$(
    TIMEFORMAT='%R %U %S'
    { time env OMP_NUM_THREADS="$threads" ${preload:+LD_PRELOAD=$preload} timeout "$limit" "$@" >"$out" 2>&1; } 2>&1
  )
  rc=$(grep -c 'Verification *= *\(UNSUCCESSFUL\|FAILED\)' "$out")
  local seconds
  seconds=$(awk '/Time Program/ {print $4}' "$out")
  if [ -z "$seconds" ]; then
    seconds=$( [ "$(echo "$times" | cut -d' ' -f1 | cut -d. -f1)" -ge "$limit" ] && echo timeout || echo failed)
  elif [ "$rc" != 0 ]; then
    seconds=wrong
  fi
  rm -f "$out"
  echo "$times $seconds"
}

# nth_sorted N: the Nth (from 1) of the numbers on stdin, in order.
nth_sorted() { sort -g | sed -n "${1}p"; }

# summarize "wall user sys program;...": " median worst cpu" of the runs'
# program seconds and CPU seconds, or what went wrong and in how many.
summarize() {
  local runs=${1//;/$'\n'} n ok bad
  n=$(echo "$runs" | grep -c .)
  ok=$(echo "$runs" | awk 'NF && $4 ~ /^[0-9.]+$/ {print $4}')
  bad=$(echo "$runs" | awk 'NF && $4 !~ /^[0-9.]+$/ {print $4; exit}')
  if [ -n "$bad" ]; then
    printf ' %26s' "$bad ($((n - $(echo "$ok" | grep -c .))) of $n)"
    return
  fi
  local median worst cpu
  median=$(echo "$ok" | nth_sorted $(((n + 1) / 2)))
  worst=$(echo "$ok" | nth_sorted "$n")
  cpu=$(echo "$runs" | awk 'NF {print $2 + $3}' | nth_sorted $(((n + 1) / 2)))
  printf ' %9.4f %9.4f %6.2f' "$median" "$worst" "$cpu"
}

# interleave NAME RUNTIMES THREADS ROUNDS LIMIT COMMAND...: ROUNDS rounds,
# each running COMMAND once on every runtime in turn; one report line per
# runtime (median and worst program time, median CPU seconds) and one JSON
# object per run.
interleave() {
  local name=$1 runtimes=$2 threads=$3 rounds=$4 limit=$5
  shift 5
  declare -A runs
  local r rt
  for ((r = 0; r < rounds; r++)); do
    for rt in ${runtimes//,/ }; do
      local t
      t=$(time_program "$limit" "$rt" "$threads" "$@")
      runs[$rt]+="$t;"
      JSON_RUNS+=("{\"program\": $(json_string "$name"), \"runtime\": \"$rt\", \"threads\": $threads, \"wall_s\": ${t%% *}, \"cpu_s\": $(echo "$t" | awk '{printf "%.3f", $2 + $3}'), \"program_s\": $(json_string "${t##* }")}")
    done
  done
  local line
  line=$(printf '%-34s %3s' "$name" "$threads")
  for rt in libgomp libomp muster; do
    if [ -z "${runs[$rt]:-}" ]; then
      line+=$(printf ' %26s' "")
    else
      line+=$(summarize "${runs[$rt]}")
    fi
  done
  say "$line"
}

knapsack() {
  section "BOTS knapsack (36 items): program seconds, median and worst, median CPU seconds (failed: the program stopped without its time, e.g. libomp 14 asserting)"
  [ -d "$B/bots/knapsack" ] || { say "not packed (pack --bots DIR)"; return; }
  skip_if_late && return
  say "$(printf '%-34s %3s %26s %26s %26s' program thr libgomp libomp muster)"
  local threads_list="16 8 2 1" rounds=3
  [ $QUICK = 1 ] && { threads_list="2 3"; rounds=1; }
  local input="$B/bots/inputs/knapsack/knapsack-036.input" prog t
  for t in $threads_list; do
    for prog in "$B"/bots/knapsack/knapsack.*; do
      skip_if_late && return
      local runtimes=libgomp,libomp,muster
      case $prog in *.clang.*) runtimes=libomp,muster ;; esac
      interleave "$(basename "$prog")" "$runtimes" "$t" $rounds 5 "$prog" -f "$input"
    done
  done
}

bots_programs() {
  local threads=16 rounds=2
  [ "$(nproc)" -lt 16 ] && threads=$(nproc)
  [ $QUICK = 1 ] && { threads=3; rounds=1; }
  section "BOTS programs (untied) at $threads threads: program seconds, median and worst, median CPU seconds"
  [ -s "$B/bots/programs.txt" ] || { say "not packed (pack --bots DIR)"; return; }
  skip_if_late && return
  say "$(printf '%-34s %3s %26s %26s %26s' program thr libgomp libomp muster)"
  local compiler name args
  while read -r compiler name args; do
    skip_if_late && return
    local runtimes=libgomp,libomp,muster
    [ "$compiler" = clang ] && runtimes=libomp,muster
    # shellcheck disable=SC2086 # args are words
    interleave "$name" "$runtimes" "$threads" $rounds 20 "$B/bots/bin/$name" ${args//INPUTS/$B/bots/inputs}
  done <"$B/bots/programs.txt"
}

run() {
  B="$here"
  OUTDIR="${OUT:-$PWD/manycore-report}"
  while [ $# -gt 0 ]; do
    case $1 in
      --quick) QUICK=1; shift ;;
      --budget) BUDGET=${2:?--budget needs seconds}; shift 2 ;;
      --out) OUTDIR=${2:?--out needs a folder}; shift 2 ;;
      -h | --help) sed -n '2,30p' "$0"; exit 0 ;;
      *) die "run: unknown argument '$1' (see --help)" ;;
    esac
  done
  [[ $BUDGET =~ ^[0-9]+$ ]] || die "--budget $BUDGET: not a whole number of seconds"
  [ -x "$B/bin/muster" ] || die "$B/bin/muster is missing: run this from a packed bundle (scripts/manycore.sh pack)"
  mkdir -p "$OUTDIR" || die "cannot create $OUTDIR"
  REPORT="$OUTDIR/report.txt"
  : >"$REPORT"
  export LD_LIBRARY_PATH="$B/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export MUSTER_OMP_LIBRARY="$B/lib/libmuster-omp.so.0.1.0" MUSTER_LIBOMP="$B/lib/libomp.so.5"
  export MUSTER_SYNCBENCH="$B/bin/syncbench" MUSTER_TASKBENCH="$B/bin/taskbench"
  [ -e "$B/bin/syncbench-clang" ] && export MUSTER_SYNCBENCH_CLANG="$B/bin/syncbench-clang"
  [ -e "$B/bin/taskbench-clang" ] && export MUSTER_TASKBENCH_CLANG="$B/bin/taskbench-clang"
  JSON_RUNS=()
  say "muster many-core run: $(basename "$B")$([ $QUICK = 1 ] && echo ' (--quick)'), budget $BUDGET s"
  machine_facts
  probe
  constructs
  waiting_cpu
  co_running
  busy_neighbours
  tasks
  task_stats
  knapsack
  bots_programs
  section "done"
  local runs
  runs=$(IFS=,; echo "${JSON_RUNS[*]}")
  JSON_PARTS+=("\"program_runs\": [$runs]" "\"seconds\": $((SECONDS - START))")
  (IFS=,; echo "{${JSON_PARTS[*]}}") >"$OUTDIR/report.json"
  say "report: $REPORT and $OUTDIR/report.json"
}

# In the bundle this script is run.sh, and runs.
if [ "$(basename "$0")" = run.sh ]; then
  run "$@"
  exit
fi
case ${1:-} in
  pack) shift; pack "$@" ;;
  run) shift; run "$@" ;;
  -h | --help | "") sed -n '2,30p' "$0" ;;
  *) die "say pack or run (see --help)" ;;
esac
