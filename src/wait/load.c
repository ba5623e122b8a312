/* The load watch (wait/load.h says what it is for). */
#include "wait/load.h"

#include <stdatomic.h>

#include "platform/cpus.h"
#include "platform/platform.h"
#include "wait/tuning.h"

/* One kind of evidence, process-wide: when the last piece came, and until
 * when it holds (0: not since the last reset).  Written at evidence only,
 * which an idle machine never produces, so waiters read them from their
 * cache. */
typedef struct evidence {
    _Atomic uint64_t last_ns, until_ns;
    _Atomic uint32_t run;            /* pieces in a row, each within the hold time of the one before */
    uint32_t needed;                 /* pieces in a row that make it hold */
    _Atomic uint64_t pieces, spells; /* statistics */
} evidence;

/* contended: another thread ran when a probe gave the CPU away; two
 * pieces.  costly: a yield was away MUSTER_LOAD_LONG_YIELD_NS or more;
 * three (an oversubscribed team alone sees one or two such yields now and
 * then: docs/tuning.md). */
static evidence contended = {.needed = 2}, costly = {.needed = 3};

/* relaxed: statistics only; they order nothing. */
static _Atomic uint64_t probe_count;

static bool holds(evidence *e)
{
    /* relaxed: a scheduling hint; a stale value costs one wait spun or
     * slept the other way, never correctness. */
    uint64_t until = atomic_load_explicit(&e->until_ns, memory_order_relaxed);
    return until != 0 && muster_now_ns() < until;
}

/* `needed` pieces in a row, each within the hold time of the one before,
 * make it hold until the hold time after the last (a lone one may be a
 * kernel thread, or the hypervisor). */
static void note(evidence *e, uint64_t now_ns)
{
    atomic_fetch_add_explicit(&e->pieces, 1, memory_order_relaxed); /* relaxed: a statistic */
    /* relaxed (all): a hint, as above; racing writers may lose one piece
     * of evidence, which the next probe replaces. */
    uint64_t previous = atomic_exchange_explicit(&e->last_ns, now_ns, memory_order_relaxed);
    if (previous == 0 || now_ns - previous > MUSTER_LOAD_HOLD_NS) {
        atomic_store_explicit(&e->run, 1, memory_order_relaxed);
        return;
    }
    /* relaxed (run and until_ns): hints as above; a lost count only delays the spell by a piece. */
    if (atomic_fetch_add_explicit(&e->run, 1, memory_order_relaxed) + 1 < e->needed)
        return;
    uint64_t until = atomic_load_explicit(&e->until_ns, memory_order_relaxed);
    if (until == 0 || until < now_ns)
        atomic_fetch_add_explicit(&e->spells, 1, memory_order_relaxed); /* relaxed: a statistic */
    if (until < now_ns + MUSTER_LOAD_HOLD_NS)
        atomic_store_explicit(&e->until_ns, now_ns + MUSTER_LOAD_HOLD_NS, memory_order_relaxed);
}

bool muster_load_contended(void)
{
    return holds(&contended);
}

bool muster_load_yields_costly(void)
{
    return holds(&costly);
}

bool muster_load_renewal_due(void)
{
    /* relaxed: a hint, as in holds(). */
    uint64_t until = atomic_load_explicit(&costly.until_ns, memory_order_relaxed);
    uint64_t now = muster_now_ns();
    return until != 0 && now < until && until - now < MUSTER_LOAD_HOLD_NS / 4;
}

void muster_load_note_evidence(uint64_t now_ns)
{
    note(&contended, now_ns);
}

void muster_load_note_costly(uint64_t now_ns)
{
    note(&costly, now_ns);
}

/* Where the CPUs went, judged over windows of at least
 * MUSTER_LOAD_SHARE_WINDOW_NS between long yields: the window's start
 * (wall clock and the process's CPU time), the last window's verdict, and
 * the CPUs the process may use (read once: it reads cgroup files). */
static _Atomic uint64_t window_wall_ns, window_cpu_ns;
static _Atomic bool window_to_others;
static _Atomic unsigned own_cpus;

/* Whether other processes ran on this process's CPUs, judged over windows
 * of MUSTER_LOAD_MACHINE_WINDOW_NS or more: the time those CPUs were busy
 * (/proc/stat) less the process's own CPU time.  A process short of its
 * CPUs while nobody else used them lost them to the host's steal or left
 * them idle (a serial phase); a long yield then went to a team-mate.
 * Unknown until a window has been judged, and again after a quiet spell. */
enum neighbours_seen { NEIGHBOURS_UNKNOWN, NEIGHBOURS_IDLE, NEIGHBOURS_BUSY };
static _Atomic uint64_t machine_wall_ns, machine_busy_ns, machine_own_ns;
static _Atomic int machine_verdict;
static _Atomic bool machine_judging;
static _Atomic uint64_t busy_windows, quiet_windows; /* relaxed: statistics */

/* Whether the machine's window from start_ns is still open (its last
 * verdict holds). */
static bool machine_window_open(uint64_t start_ns, uint64_t now_ns)
{
    return start_ns != 0 && now_ns >= start_ns && now_ns - start_ns < MUSTER_LOAD_MACHINE_WINDOW_NS;
}

static bool last_verdict_may_be_busy(void)
{
    /* relaxed: a hint, as in holds(); a stale verdict costs one wait judged the other way. */
    return atomic_load_explicit(&machine_verdict, memory_order_relaxed) != NEIGHBOURS_IDLE;
}

static bool neighbours_may_be_busy(uint64_t now_ns, uint64_t own_ns)
{
    /* relaxed (all but the judge's flag): a hint, as in
     * long_yield_to_others, whose windows these are. */
    if (machine_window_open(atomic_load_explicit(&machine_wall_ns, memory_order_relaxed), now_ns))
        return last_verdict_may_be_busy();
    /* One judge at a time: two would pair one's start with the other's
     * busy time, a window with no busy time in it, and read it as quiet.
     * acquire: pairs with the release stores of machine_judging below (the
     * last judge's), so the judge sees its start, busy and own times together. */
    if (atomic_exchange_explicit(&machine_judging, true, memory_order_acquire))
        return last_verdict_may_be_busy();
    /* relaxed: ordered by the judge's flag just acquired. */
    uint64_t start = atomic_load_explicit(&machine_wall_ns, memory_order_relaxed);
    if (machine_window_open(start, now_ns)) { /* another judge just opened a new one */
        /* release: pairs with the next judge's acquire exchange above (nothing written here). */
        atomic_store_explicit(&machine_judging, false, memory_order_release);
        return last_verdict_may_be_busy();
    }
    uint64_t busy_ns;
    int verdict = NEIGHBOURS_UNKNOWN;
    if (own_ns != 0 && muster_cpus_busy_ns(&busy_ns)) {
        /* relaxed (all three): only the judge writes them, and the judge's flag
         * (acquire exchange above, release store below) orders them between judges. */
        uint64_t busy_start = atomic_exchange_explicit(&machine_busy_ns, busy_ns, memory_order_relaxed);
        uint64_t own_start = atomic_exchange_explicit(&machine_own_ns, own_ns, memory_order_relaxed);
        atomic_store_explicit(&machine_wall_ns, now_ns, memory_order_relaxed);
        if (start != 0 && now_ns > start && now_ns - start <= 4 * (uint64_t)MUSTER_LOAD_MACHINE_WINDOW_NS &&
            busy_ns >= busy_start && own_ns >= own_start) {
            uint64_t busy = busy_ns - busy_start, own = own_ns - own_start;
            uint64_t others = busy > own ? busy - own : 0;
            verdict = others * 100 >= (now_ns - start) * MUSTER_LOAD_NEIGHBOUR_PERCENT ? NEIGHBOURS_BUSY
                                                                                      : NEIGHBOURS_IDLE;
            /* relaxed: a statistic */
            atomic_fetch_add_explicit(verdict == NEIGHBOURS_BUSY ? &busy_windows : &quiet_windows, 1,
                                      memory_order_relaxed);
        }
    }
    atomic_store_explicit(&machine_verdict, verdict, memory_order_relaxed);
    /* release: pairs with the next judge's acquire exchange above. */
    atomic_store_explicit(&machine_judging, false, memory_order_release);
    return verdict != NEIGHBOURS_IDLE;
}

/* Whether a yield that ended at now_ns, away MUSTER_LOAD_LONG_YIELD_NS or
 * more, went to another process: false when over the last window this
 * process used MUSTER_LOAD_OWN_SHARE_PERCENT of its CPUs or more, when
 * over the machine's last window nobody else used them, and
 * while no window can be judged yet (the first long yield, or the first
 * after a quiet spell: it starts one). */
static bool long_yield_to_others(uint64_t now_ns)
{
    /* relaxed (all): a hint, as the evidence; racing long yields may
     * judge a window twice or split it, never correctness. */
    uint64_t start = atomic_load_explicit(&window_wall_ns, memory_order_relaxed);
    if (start != 0 && now_ns >= start && now_ns - start < MUSTER_LOAD_SHARE_WINDOW_NS)
        return atomic_load_explicit(&window_to_others, memory_order_relaxed);
    uint64_t cpu_ns = muster_process_cpu_ns();
    /* relaxed (both): the window's start, a hint as above. */
    uint64_t cpu_start = atomic_exchange_explicit(&window_cpu_ns, cpu_ns, memory_order_relaxed);
    atomic_store_explicit(&window_wall_ns, now_ns, memory_order_relaxed);
    bool to_others = false;
    if (start != 0 && now_ns > start && now_ns - start <= 4 * (uint64_t)MUSTER_LOAD_HOLD_NS && cpu_ns != 0 &&
        cpu_ns >= cpu_start) {
        /* relaxed (both): a cached count; racing writers store the same value. */
        unsigned cpus = atomic_load_explicit(&own_cpus, memory_order_relaxed);
        if (cpus == 0) {
            cpus = muster_cpus_available();
            atomic_store_explicit(&own_cpus, cpus, memory_order_relaxed);
        }
        to_others = (cpu_ns - cpu_start) * 100 < (now_ns - start) * cpus * MUSTER_LOAD_OWN_SHARE_PERCENT;
    }
    /* Judged at every window, so that the machine's window keeps rolling. */
    bool neighbours = neighbours_may_be_busy(now_ns, cpu_ns);
    to_others = to_others && neighbours;
    /* relaxed: the window's verdict, a hint as above. */
    atomic_store_explicit(&window_to_others, to_others, memory_order_relaxed);
    return to_others;
}

/* A yield from start_ns to end_ns: evidence that yields are costly when
 * it was long and the CPU went to another process. */
static void judge_yield(uint64_t start_ns, uint64_t end_ns)
{
    if (end_ns - start_ns >= MUSTER_LOAD_LONG_YIELD_NS && long_yield_to_others(end_ns))
        muster_load_note_costly(end_ns);
}

bool muster_load_probe(void)
{
    atomic_fetch_add_explicit(&probe_count, 1, memory_order_relaxed); /* relaxed: a statistic */
    uint64_t switches = muster_thread_preemptions();
    uint64_t start = muster_now_ns();
    muster_cpu_yield();
    uint64_t end = muster_now_ns();
    if (end - start < MUSTER_LOAD_GAP_NS || muster_thread_preemptions() == switches)
        return false; /* nobody else ran: an idle CPU, or an interrupt or the hypervisor */
    note(&contended, end);
    judge_yield(start, end);
    return true;
}

void muster_load_yield(void)
{
    uint64_t start = muster_now_ns();
    muster_cpu_yield();
    uint64_t end = muster_now_ns();
    judge_yield(start, end);
}

void muster_load_reset(void)
{
    /* relaxed: tests reset with no waiter running. */
    evidence *kinds[] = {&contended, &costly};
    for (int k = 0; k < 2; k++) {
        atomic_store_explicit(&kinds[k]->last_ns, 0, memory_order_relaxed);
        atomic_store_explicit(&kinds[k]->until_ns, 0, memory_order_relaxed);
        atomic_store_explicit(&kinds[k]->run, 0, memory_order_relaxed);
    }
    /* relaxed (all): as above, no waiter runs. */
    atomic_store_explicit(&window_wall_ns, 0, memory_order_relaxed);
    atomic_store_explicit(&window_cpu_ns, 0, memory_order_relaxed);
    atomic_store_explicit(&window_to_others, false, memory_order_relaxed);
    atomic_store_explicit(&machine_wall_ns, 0, memory_order_relaxed);
    atomic_store_explicit(&machine_verdict, NEIGHBOURS_UNKNOWN, memory_order_relaxed);
}

muster_load_counts muster_load_counters(void)
{
    /* relaxed (all): statistics counters, read for the report only. */
    return (muster_load_counts){atomic_load_explicit(&probe_count, memory_order_relaxed),
                                atomic_load_explicit(&contended.pieces, memory_order_relaxed),
                                atomic_load_explicit(&contended.spells, memory_order_relaxed),
                                /* relaxed: statistics, as above. */
                                atomic_load_explicit(&costly.pieces, memory_order_relaxed),
                                atomic_load_explicit(&costly.spells, memory_order_relaxed),
                                atomic_load_explicit(&busy_windows, memory_order_relaxed),
                                atomic_load_explicit(&quiet_windows, memory_order_relaxed)};
}
