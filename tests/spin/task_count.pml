/* A task count with its sleeper tag (src/omp/task/core.h and wait.c), checked with spin:
 * taskwait (or a taskgroup's end) waiting for the last of its children.
 *
 * The count is one 64-bit word: the unfinished tasks in the low 32 bits,
 * the member asleep waiting for it (id + 1, 0: none) in the high 32.  Here
 * the halves are 8 and 8 bits of an int (LEFT, SLEEPER), which changes
 * nothing: the counts stay far below either limit.  Member 0 waits for its
 * CHILDREN children, which members 1 and 2 are running; member 3 stands
 * for the rest of the team, whose wakes on the shared signal word (a task
 * queued, the team's last task) may wake the waiter at any time.  Step by
 * step, one shared access per step, as the C code does it:
 *   waiter (member 0), wait_running_descendants:
 *     the loop's test            an acquire load of the count: no task left
 *                                ends the wait
 *     (the look for a task to run finds none: the children are running)
 *     muster_omp_tasks_idle      spin (polls left), or: load signal (seen),
 *                                fetch_add sleepers (not modelled, see
 *                                below), then still_waiting =
 *     count_nonzero              one fetch_add of SLEEPER(me): announces
 *                                the member and reads the count before it;
 *                                tasks left and none visible:
 *                                futex_wait_tagged(signal, seen, tag)
 *     count_withdraw             after the idle, if announced: fetch_sub of
 *                                SLEEPER(me) (relaxed)
 *   finishers (members 1, 2), run_deferred:
 *     complete_record            count_finished: one fetch_sub of ONE; when
 *                                it emptied the count, sleeper_tag of the
 *                                word before is whom to wake
 *     muster_omp_tasks_finished  a nonzero tag:
 *     muster_omp_tasks_wake_members  a fetch_add of signal, then
 *                                futex_wake_tagged(signal, all, tag)
 *   the rest of the team (member 3): wake_for_work or
 *     wake_last_task_sleepers    a fetch_add of signal, then a plain
 *                                futex_wake, which wakes every tag
 * The futex is modelled as the kernel does it: futex_wait's value check and
 * going to sleep are one atomic step; a wake releases the sleepers whose
 * tag it matches (here the waiter is the only sleeper, and every wake
 * matches its tag).
 *
 * Abstracted: the nap's deadline (the property is that no wake-up relies
 * on it, so the waiter sleeps until woken); the look for tasks (the
 * scheduler_signal model checks that queued work wakes a sleeper; here
 * nothing is queued, so muster_omp_tasks_visible is false); the sleeper
 * and last-task-sleeper counts (only pushes and finishers that wake every
 * sleeper read them, and they would only add wakes: member 3 does that);
 * the reference counts and the task records.  The count's read-modify-writes
 * are seq_cst except count_withdraw, whose relaxed fetch_sub only this
 * member's own later accesses read (and a finisher, which then sends one
 * needless wake); the load of signal is acquire, and a stale value only
 * makes futex_wait return at once.  So a sequentially consistent model is
 * faithful.
 *
 * Proved: the waiter never returns while a child is unfinished (the
 * assert), its announcement is withdrawn when it returns (the assert), and
 * it always wakes once the count reaches 0: every process ends (spin
 * reports a waiter left asleep as an "invalid end state").
 *
 * Deliberately broken variants, each of which the check must catch:
 *   -DBUG_FINISH_IGNORES_TAG  the finisher emptying the count does not look
 *                             at the tag and wakes nobody
 *   -DBUG_SPLIT_ANNOUNCE      the waiter loads the count, then announces with
 *                             a separate fetch_add (not one RMW)
 *   -DBUG_WOKEN_MEANS_DONE    the waiter returns once woken, without reading
 *                             the count again */

#define CHILDREN 2
#define MEMBERS 4
#define ONE 1
#define SLEEPER(id) (((id) + 1) << 8)
#define LEFT(c) ((c) & 255)
#define SLEEPER_OF(c) ((c) >> 8)

int count = CHILDREN;   /* the parent's children (task_node.children) */
byte signal = 0;        /* tt->signal, the futex word */
bool asleep = false;    /* the waiter, on signal */

/* muster_futex_wait_tagged(signal, seen, ...): sleeps only while the word
 * holds seen. */
inline futex_wait(seen) {
    atomic {
        if
        :: signal == seen -> asleep = true
        :: else -> skip
        fi
    }
    (!asleep)
}

/* A fetch_add of signal and a futex wake that matches the waiter's tag. */
inline signal_and_wake() {
    signal++;
    asleep = false
}

proctype waiter() {
    byte me = 0, seen;
    int c;
    bool announced = false, nonzero;
    do
    :: c = count;                    /* the loop's acquire load */
       if
       :: LEFT(c) == 0 -> break
       :: else -> c = 0
       fi;
       /* muster_omp_tasks_idle */
       if
       :: skip                       /* polls left: spin, then look again */
       :: seen = signal;
#ifdef BUG_SPLIT_ANNOUNCE
          c = count;
          count = count + SLEEPER(me);
#else
          atomic { c = count; count = count + SLEEPER(me) }   /* count_nonzero */
#endif
          announced = true;
          nonzero = (LEFT(c) != 0);
          c = 0;
          if
          :: nonzero -> futex_wait(seen)
          :: else -> skip
          fi;
          atomic { seen = 0; nonzero = false }
#ifdef BUG_WOKEN_MEANS_DONE
          ;
          if
          :: announced -> count = count - SLEEPER(me); announced = false; break
          :: else -> skip
          fi
#endif
       fi;
       /* count_withdraw */
       if
       :: announced -> count = count - SLEEPER(me); announced = false
       :: else -> skip
       fi
    od;
    assert(LEFT(count) == 0);
    assert(SLEEPER_OF(count) == 0)
}

proctype finisher() {
    int before;
    byte tag;
    /* count_finished */
    atomic { before = count; count = count - ONE }
#ifdef BUG_FINISH_IGNORES_TAG
    tag = 0;
#else
    tag = (LEFT(before) == 1 -> SLEEPER_OF(before) : 0);
#endif
    before = 0;
    /* muster_omp_tasks_finished -> muster_omp_tasks_wake_members */
    if
    :: tag != 0 -> signal_and_wake()
    :: else -> skip
    fi
}

/* Another member's wake on the team's signal word, once. */
proctype team() {
    signal_and_wake()
}

init {
    atomic {
        run waiter();
        run finisher();
        run finisher();
        run team();
    }
}
