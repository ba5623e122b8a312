/* The load watch (wait/load.h says what it is for). */
#include "wait/load.h"

#include <stdatomic.h>

#include "platform/platform.h"
#include "wait/policy.h"

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
    if (end - start >= MUSTER_LOAD_LONG_YIELD_NS)
        muster_load_note_costly(end);
    return true;
}

void muster_load_yield(void)
{
    uint64_t start = muster_now_ns();
    muster_cpu_yield();
    uint64_t end = muster_now_ns();
    if (end - start >= MUSTER_LOAD_LONG_YIELD_NS && muster_wait_settings_get()->load_watch)
        muster_load_note_costly(end);
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
}

muster_load_counts muster_load_counters(void)
{
    /* relaxed: statistics. */
    return (muster_load_counts){atomic_load_explicit(&probe_count, memory_order_relaxed),
                                atomic_load_explicit(&contended.pieces, memory_order_relaxed),
                                atomic_load_explicit(&contended.spells, memory_order_relaxed),
                                atomic_load_explicit(&costly.pieces, memory_order_relaxed),
                                atomic_load_explicit(&costly.spells, memory_order_relaxed)};
}
