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
 * (wait.c), so the CPUs go to whoever can use them; an idle machine never
 * switches in a probe and never sees a difference but the probes' cost
 * (the constants and their measurements: policy.h, docs/tuning.md). */
#ifndef MUSTER_WAIT_LOAD_H
#define MUSTER_WAIT_LOAD_H

#include <stdbool.h>
#include <stdint.h>

/* True while the process is contended (evidence within the hold time). */
bool muster_load_contended(void);

/* A probing yield: gives the CPU away once and records evidence when
 * another thread ran meanwhile for at least MUSTER_LOAD_GAP_NS.  Returns
 * true when it found evidence. */
bool muster_load_probe(void);

/* Records one piece of evidence seen at now_ns (the probe's rule; tests
 * call it to check the rule without a second busy thread). */
void muster_load_note_evidence(uint64_t now_ns);

/* Forgets all evidence (tests). */
void muster_load_reset(void);

/* What the watch has seen in this process: probes made, probes that found
 * another thread running, and times the process became contended. */
typedef struct muster_load_counts {
    uint64_t probes, evidence, contended_spells;
} muster_load_counts;
muster_load_counts muster_load_counters(void);

#endif
