/* The load watch: does something outside the team want our CPUs?
 *
 * A team that fits the CPUs spins while it waits, on the assumption that
 * each waiter has its CPU to itself.  When other processes share the CPUs
 * (another OpenMP program, MPI ranks that are not bound, a build), a
 * spinning waiter holds a CPU that a runnable thread elsewhere needs, and
 * the thread it waits for may itself be queued behind someone else's:
 * processes started together then take several times as long as the same
 * processes one after the other.  The census (wait/census.h) sees only the
 * team's own threads, so it cannot tell.
 *
 * The kernel can.  A spinning waiter yields its CPU now and then (a probe):
 * on a CPU nobody else wants, sched_yield returns at once; on a contended
 * one it hands the CPU to the thread that was queued, which the kernel
 * counts as an involuntary context switch of ours.  A probe that switched
 * and was away for a while is evidence; two pieces of evidence within the
 * hold time make the process contended until the hold time after the last.
 * While contended, waiters spin only briefly, probe once more, and sleep
 * (wait.c), so the CPUs go to whoever can use them.  Yields that were away
 * long make yields costly (muster_load_yields_costly): then no wait yields,
 * so none hands its CPU to a busy process for a whole slice; an idle machine never
 * switches in a probe and never sees a difference but the probes' cost
 * (the constants and their measurements: tuning.h, docs/tuning.md). */
#ifndef MUSTER_WAIT_LOAD_H
#define MUSTER_WAIT_LOAD_H

#include <stdbool.h>
#include <stdint.h>

/* True while the process is contended (evidence within the hold time). */
bool muster_load_contended(void);

/* True while yields are costly: a yield (a probe, or an oversubscribed
 * team's yield to a team-mate) was away MUSTER_LOAD_LONG_YIELD_NS or more,
 * three times in a row within the hold time of each other, while the
 * process used under MUSTER_LOAD_OWN_SHARE_PERCENT of its CPUs (a crowded
 * team alone yields long to its own members) and other processes used
 * MUSTER_LOAD_NEIGHBOUR_PERCENT of one of them or more (else the host stole
 * them, or they stood idle).  Another OpenMP process's waiter gives the
 * CPU back soon; a busy process keeps it for its slice, and under EEVDF a
 * yielder's deadline moves back.  While costly, waits do not yield: an
 * oversubscribed team's waiters sleep instead, and contended waiters sleep
 * without the probe they otherwise make before each sleep. */
bool muster_load_yields_costly(void);

/* True while yields are costly with less than a quarter of the hold time
 * left: then a waiter about to sleep yields once, to renew the evidence or
 * let it lapse. */
bool muster_load_renewal_due(void);

/* A probing yield: gives the CPU away once and records evidence when
 * another thread ran meanwhile for at least MUSTER_LOAD_GAP_NS.  Returns
 * true when it found evidence. */
bool muster_load_probe(void);

/* A yield meant for a team-mate (the oversubscribed waits' and the
 * co-location guard's): evidence that yields are costly when it was away
 * MUSTER_LOAD_LONG_YIELD_NS or more (a team-mate runs to its next wait and
 * gives the CPU back).  Waiters with watch_yields call it (wait.c); the
 * others yield plainly (MUSTER_LOAD_WATCH=0). */
void muster_load_yield(void);

/* Records one piece of evidence seen at now_ns (the probe's rule; tests
 * call it to check the rule without a second busy thread); the second,
 * that yields are costly. */
void muster_load_note_evidence(uint64_t now_ns);
void muster_load_note_costly(uint64_t now_ns);

/* Forgets all evidence (tests). */
void muster_load_reset(void);

/* What the watch has seen in this process: probes made, probes that found
 * another thread running, and times the process became contended. */
typedef struct muster_load_counts {
    uint64_t probes, evidence, contended_spells;
    uint64_t costly_yields, costly_spells; /* yields away long, and spells of them */
    uint64_t busy_windows, quiet_windows;  /* machine windows: others used the CPUs, or nobody did */
} muster_load_counts;
muster_load_counts muster_load_counters(void);

#endif
