/* The task scheduler's wake-up handshake (src/omp/task/scheduler.c): the team's
 * sleeper counts and its signal word, checked with spin.
 *
 * Member 0 runs a task T0 (counted created, as every deferred task, before
 * it was queued) and queues a task T1; members 1 and 2 drain the team's
 * tasks (muster_omp_tasks_drain: look for a task, run it, else sleep until
 * there is one or until none is left).  Step by step, one shared access per
 * step, as the C code does it:
 *   producer (member 0):
 *     muster_omp_tasks_push      count_created: a seq_cst store of its
 *                                created count; the deque push: a seq_cst
 *                                store of bottom (here: queued + 1)
 *     wake_for_work              a seq_cst load of sleepers; when nonzero
 *                                (spare_members is 0 here), nudge_barriers
 *                                finds no barrier sleeper, then a fetch_add
 *                                of signal and futex_wake(signal, 1)
 *     muster_omp_tasks_finished  T0 ends: the exchange of its finished
 *                                count (muster_store_before_load), a load of
 *                                last_task_sleepers and, when nonzero,
 *                                muster_omp_tasks_pending; 0 pending:
 *     wake_last_task_sleepers    a fetch_add of signal, futex_wake(all)
 *     then member 0 leaves the scheduler (it goes on in code of its own):
 *     the sleepers must get T1 without its help.
 *   drainers (members 1, 2):
 *     muster_omp_tasks_drain     the look (a steal: one CAS on top, here a
 *                                decrement of queued if positive), then
 *                                run_deferred and muster_omp_tasks_finished
 *                                as above; nothing found: pending 0 ends the
 *                                drain, else
 *     muster_omp_tasks_idle      spin (polls left), or: load signal (seen),
 *                                fetch_add sleepers, fetch_add
 *                                last_task_sleepers, team_has_tasks (the
 *                                pending sum) and muster_omp_tasks_visible
 *                                (the deque's size), then
 *                                futex_wait(signal, seen); fetch_sub both.
 *     muster_omp_tasks_pending   the finished counts one load each, then
 *                                the created counts one load each.
 * The futex is modelled as the kernel does it: futex_wait's value check
 * and going to sleep are one atomic step; futex_wake(1) releases one
 * sleeper (any one), futex_wake(all) every one.
 *
 * Abstracted: the nap's deadline (the sleepers' backstop: the property is
 * that no wake-up relies on it, so a sleeper here sleeps until woken);
 * spare_members > 0, where wake_for_work deliberately leaves the new task to
 * the awake members and the naps; the barriers' sleepers; the priority
 * queue (its push is a seq_cst fetch_add of prio_count before
 * wake_for_work, the same handshake as the deque's bottom); the deques
 * other than member 0's (empty); the futex tags (the drain's sleepers wait
 * on bit 31, which every plain futex_wake matches); foreign_finished (no
 * thread outside the team); the hungry counts (hints); members asleep in a
 * taskwait or a taskgroup's end on the same word (task_count.pml): a
 * wake-one that lands on one of them, which may run only its own
 * descendants, leaves a task it may not run to the others' naps unless it
 * passes the task on (pass_on, which wakes again) before its count
 * empties, so the property below is for members that run any task.
 * Every access here is seq_cst in the C code except the idle member's load
 * of signal (acquire): a stale value only makes futex_wait return at once,
 * so a sequentially consistent model is faithful.
 *
 * Proved: the queued task is never left with every member asleep, and the
 * last task's end wakes the members waiting for it: every member gets
 * past its sleeps and ends (spin reports a member left asleep as an
 * "invalid end state"), and each task runs once (the assert).
 *
 * Deliberately broken variants, each of which the check must catch:
 *   -DBUG_WAKE_BEFORE_PUSH    the producer reads sleepers before it counts
 *                             and pushes the task
 *   -DBUG_LOOK_BEFORE_ANNOUNCE  a member re-checks for tasks before it
 *                             counts itself in sleepers
 *   -DBUG_FINISH_LOAD_FIRST   a finisher reads last_task_sleepers before it
 *                             stores its finished count (a plain release
 *                             store, which may pass the load) */

#define MEMBERS 3

byte created[MEMBERS];    /* tt->counts[id].created */
byte finished[MEMBERS];   /* tt->counts[id].finished */
byte queued = 0;          /* member 0's deque: bottom - top */
byte signal = 0;          /* tt->signal, the futex word */
byte sleepers = 0;        /* tt->sleepers */
byte last_task_sleepers = 0;
bool asleep[MEMBERS];
byte runs = 0;            /* ghost: how often T1 ran */

/* muster_futex_wait(signal, seen): sleeps only while the word holds seen. */
inline futex_wait(seen) {
    atomic {
        if
        :: signal == seen -> asleep[me] = true
        :: else -> skip
        fi
    }
    (!asleep[me])
}

inline futex_wake_one() {
    atomic {
        if
        :: asleep[0] -> asleep[0] = false
        :: asleep[1] -> asleep[1] = false
        :: asleep[2] -> asleep[2] = false
        :: else -> skip
        fi
    }
}

inline futex_wake_all() {
    atomic { asleep[0] = false; asleep[1] = false; asleep[2] = false }
}

/* muster_omp_tasks_pending into p: every finished count, then every
 * created count, one seq_cst load each. */
inline pending(p) {
    k = 0; done = 0; made = 0;
    do
    :: k < MEMBERS -> atomic { done = done + finished[k]; k++ }
    :: else -> break
    od;
    k = 0;
    do
    :: k < MEMBERS -> atomic { made = made + created[k]; k++ }
    :: else -> break
    od;
    /* locals back to 0 once used, so that spin does not tell apart
     * states that differ only in dead values */
    atomic { p = made - done; k = 0; done = 0; made = 0 }
}

/* wake_for_work, with spare_members 0 and no barrier sleeper. */
inline wake_for_work() {
    if
    :: seen_sleepers == 0 -> skip
    :: else -> signal++; futex_wake_one()
    fi
}

/* muster_omp_tasks_finished(tt, me, 0): the task's finished count, then
 * the last-task sleepers. */
inline tasks_finished() {
#ifdef BUG_FINISH_LOAD_FIRST
    last = last_task_sleepers;
    finished[me] = finished[me] + 1;
#else
    finished[me] = finished[me] + 1;   /* muster_store_before_load */
    last = last_task_sleepers;
#endif
    if
    :: last != 0 ->
       pending(p);
       if
       :: p == 0 -> signal++; futex_wake_all()   /* wake_last_task_sleepers */
       :: else -> skip
       fi
    :: else -> skip
    fi;
    atomic { last = 0; p = 0 }
}

proctype producer() {
    byte me = 0, seen_sleepers, last, k, done, made, p;
#ifdef BUG_WAKE_BEFORE_PUSH
    seen_sleepers = sleepers;
#endif
    created[me] = created[me] + 1;   /* count_created */
    queued++;                        /* the push's store of bottom */
#ifndef BUG_WAKE_BEFORE_PUSH
    seen_sleepers = sleepers;
#endif
    wake_for_work();
    tasks_finished()                 /* T0 ends */
}

/* The re-check of muster_omp_tasks_idle: team_has_tasks and
 * !muster_omp_tasks_visible. */
inline look_again() {
    pending(p);
    if
    :: p != 0 && queued == 0 -> futex_wait(seen)
    :: else -> skip
    fi;
    p = 0
}

proctype drainer(byte me) {
    byte seen, last, k, done, made, p;
    bool got;
    do
    :: /* the look: a steal */
       atomic {
           if
           :: queued > 0 -> queued--; got = true
           :: else -> got = false
           fi
       }
       if
       :: got ->
          got = false;
          runs++;                     /* run_deferred: T1's body */
          assert(runs == 1);
          tasks_finished()
       :: else ->
          pending(p);
          if
          :: p == 0 -> break
          :: else -> p = 0
          fi;
          /* muster_omp_tasks_idle */
          if
          :: skip                     /* polls left: spin and look again */
          :: seen = signal;
#ifdef BUG_LOOK_BEFORE_ANNOUNCE
             pending(p);
             if
             :: p != 0 && queued == 0 ->
                sleepers++;
                last_task_sleepers++;
                futex_wait(seen)
             :: else ->
                sleepers++;
                last_task_sleepers++
             fi;
#else
             sleepers++;
             last_task_sleepers++;
             look_again();
#endif
             last_task_sleepers--;
             sleepers--;
             seen = 0
          fi
       fi
    od
}

init {
    atomic {
        created[0] = 1;   /* T0, running in member 0 */
        run producer();
        run drainer(1);
        run drainer(2);
    }
}
