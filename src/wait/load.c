/* The load watch (wait/load.h says what it is for). */
#include "wait/load.h"

#include <stdatomic.h>

#include "platform/platform.h"
#include "wait/policy.h"

/* Process-wide: when the last evidence came, and until when the process is
 * contended (0: not since the last reset).  Written at evidence only, which
 * an idle machine never produces, so waiters read them from their cache. */
static _Atomic uint64_t last_evidence_ns, contended_until_ns;

/* relaxed: statistics only; they order nothing. */
static _Atomic uint64_t probe_count, evidence_count, spell_count;

bool muster_load_contended(void)
{
    /* relaxed: a scheduling hint; a stale value costs one wait spun or
     * slept the other way, never correctness. */
    uint64_t until = atomic_load_explicit(&contended_until_ns, memory_order_relaxed);
    return until != 0 && muster_now_ns() < until;
}

void muster_load_note_evidence(uint64_t now_ns)
{
    atomic_fetch_add_explicit(&evidence_count, 1, memory_order_relaxed); /* relaxed: a statistic */
    /* relaxed (all three): a hint, as above; racing writers may lose one
     * piece of evidence, which the next probe replaces. */
    uint64_t previous = atomic_exchange_explicit(&last_evidence_ns, now_ns, memory_order_relaxed);
    if (previous == 0 || now_ns - previous > MUSTER_LOAD_HOLD_NS)
        return; /* a lone switch: a kernel thread, say; wait for a second */
    uint64_t until = atomic_load_explicit(&contended_until_ns, memory_order_relaxed);
    if (until == 0 || until < now_ns)
        atomic_fetch_add_explicit(&spell_count, 1, memory_order_relaxed); /* relaxed: a statistic */
    if (until < now_ns + MUSTER_LOAD_HOLD_NS)
        atomic_store_explicit(&contended_until_ns, now_ns + MUSTER_LOAD_HOLD_NS, memory_order_relaxed);
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
    muster_load_note_evidence(end);
    return true;
}

void muster_load_reset(void)
{
    /* relaxed: tests reset with no waiter running. */
    atomic_store_explicit(&last_evidence_ns, 0, memory_order_relaxed);
    atomic_store_explicit(&contended_until_ns, 0, memory_order_relaxed);
}

muster_load_counts muster_load_counters(void)
{
    /* relaxed: statistics. */
    return (muster_load_counts){atomic_load_explicit(&probe_count, memory_order_relaxed),
                                atomic_load_explicit(&evidence_count, memory_order_relaxed),
                                atomic_load_explicit(&spell_count, memory_order_relaxed)};
}
