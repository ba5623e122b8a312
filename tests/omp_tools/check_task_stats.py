"""Reads the output of task_stats_prog run under libmuster-omp with
MUSTER_OMP_TASK_STATS=1 (stdin) and checks that its busy team made far
fewer futex wake-ups than it created tasks: no system call per task while
every member is busy; and that the per-member lines add up to the totals
(the deferred tasks are those the members ran, the steals theirs).  usage: check_task_stats.py [TASKS_PER_WAKEUP]
(default 1000: at most one wake-up per that many tasks).  Exits 0 when so,
else 1 saying why."""
import re
import sys

text = sys.stdin.read()
print(text.strip())
stats = re.search(r"deferred=(\d+) run_at_once=(\d+) stolen=(\d+) idle_sleeps=(\d+) wakeups=(\d+)", text)
run = re.search(r"tasks=(\d+) ran=(\d+)", text)
problems = []
if stats is None or run is None:
    problems.append("no task statistics or no task count in the output")
else:
    deferred, at_once, stolen, sleeps, wakeups = map(int, stats.groups())
    tasks, ran = map(int, run.groups())
    if ran != tasks:
        problems.append(f"{ran} of {tasks} tasks ran")
    if deferred + at_once != tasks:
        problems.append(f"deferred {deferred} + run at once {at_once} != {tasks} tasks")
    members = re.findall(r"member (\d+)\+? ran=(\d+) stolen=(\d+) empty_steal_rounds=(\d+) max_queued=(\d+) "
                         r"idle_ms=([0-9.]+)", text)
    if not members:
        problems.append("no per-member task statistics")
    elif sum(int(m[1]) for m in members) != deferred:
        problems.append(f"the members ran {sum(int(m[1]) for m in members)} deferred tasks, not {deferred}")
    elif sum(int(m[2]) for m in members) != stolen:
        problems.append(f"the members stole {sum(int(m[2]) for m in members)} tasks, not {stolen}")
    per = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    if wakeups * per > tasks:
        problems.append(f"{wakeups} wake-ups for {tasks} tasks: more than 1 in {per}")
for p in problems:
    print("check_task_stats:", p)
print("check_task_stats:", "FAILED" if problems else "ok")
sys.exit(1 if problems else 0)
