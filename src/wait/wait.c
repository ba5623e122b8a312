/* The wait layer's slow path: spin, then sleep on the futex. */
#include "wait.h"

#include <limits.h>
#include <pthread.h>

#include "platform/platform.h"
#include "wait/census.h"
#include "wait/load.h"
#include "wait/tuning.h"

/* relaxed: statistics only; they order nothing. */
static _Atomic uint64_t sleep_count, wake_count, yield_count, woken_count, slow_wake_count, wake_delay_total;
/* When the process last called a futex wake (relaxed: a statistic's input;
 * a racing waker's stamp makes one delay look shorter). */
static _Atomic uint64_t last_wake_ns;

muster_wait_counts muster_wait_counters(void)
{
    /* relaxed (all): statistics counters, read for the report only. */
    return (muster_wait_counts){atomic_load_explicit(&sleep_count, memory_order_relaxed),
                                atomic_load_explicit(&wake_count, memory_order_relaxed),
                                atomic_load_explicit(&yield_count, memory_order_relaxed),
                                atomic_load_explicit(&woken_count, memory_order_relaxed),
                                atomic_load_explicit(&slow_wake_count, memory_order_relaxed),
                                atomic_load_explicit(&wake_delay_total, memory_order_relaxed)};
}

/* A wake call is about to be made. */
static void stamp_wake(void)
{
    atomic_fetch_add_explicit(&wake_count, 1, memory_order_relaxed); /* relaxed: a statistic */
    atomic_store_explicit(&last_wake_ns, muster_now_ns(), memory_order_relaxed); /* relaxed: see above */
}

/* A sleep that began at slept_ns has ended with its flag reached: when a
 * wake call came after it began, counts how long after that call the
 * waiter ran. */
static void note_wake_delay(uint64_t slept_ns)
{
    uint64_t woke = atomic_load_explicit(&last_wake_ns, memory_order_relaxed); /* relaxed: a statistic */
    if (woke < slept_ns)
        return; /* a timeout, a spurious return, or the flag moved before the sleep */
    uint64_t delay = muster_now_ns() - woke;
    /* relaxed (all): statistics. */
    atomic_fetch_add_explicit(&woken_count, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&wake_delay_total, delay, memory_order_relaxed);
    if (delay >= MUSTER_SLOW_WAKE_NS)
        atomic_fetch_add_explicit(&slow_wake_count, 1, memory_order_relaxed);
}

/* How many times this thread's adaptive spin budgets are doubled
 * (MUSTER_SPIN_ADAPT_*, tuning.h).  initial-exec: read at every slow wait;
 * one word fits the surplus static TLS a dlopen()ed copy gets. */
static _Thread_local unsigned spin_doublings __attribute__((tls_model("initial-exec")));

/* The polls a waiter spins before it sleeps (HYBRID). */
static uint64_t spin_budget(const muster_waiter *waiter)
{
    return waiter->adaptive ? waiter->spin_iterations << spin_doublings : waiter->spin_iterations;
}

/* After an adaptive wait whose flag came slept_ns after it began to
 * sleep: soon means the budget fell just short (spin longer next time),
 * late means the thread waited for was really late (spin less). */
static void adapt_budget(const muster_waiter *waiter, uint64_t slept_ns)
{
    if (!waiter->adaptive)
        return;
    if (slept_ns < MUSTER_SPIN_ADAPT_SHORT_SLEEP_NS)
        spin_doublings = spin_doublings + 2 < MUSTER_SPIN_ADAPT_MAX_DOUBLINGS ? spin_doublings + 2
                                                                           : MUSTER_SPIN_ADAPT_MAX_DOUBLINGS;
    else if (slept_ns > MUSTER_SPIN_ADAPT_LONG_SLEEP_NS && spin_doublings > 0)
        spin_doublings--;
}

unsigned muster_wait_spin_doublings(void)
{
    return spin_doublings;
}

/* How often (in polls) a spinning waiter with a deadline reads the clock. */
#define DEADLINE_CHECK_INTERVAL 64u

static int check_value(uint32_t v, uint32_t target)
{
    if (muster_flag_reached(v, target))
        return 1;
    if (v & MUSTER_FLAG_BROKEN)
        return MUSTER_E_BROKEN;
    return 0;
}

static bool deadline_passed(const muster_waiter *waiter)
{
    return waiter->deadline_ns != 0 && muster_now_ns() >= waiter->deadline_ns;
}

/* Spins up to `polls` times.  Returns 1 reached, 0 still waiting, or an error. */
static int spin(muster_flag *flag, uint32_t target, const muster_waiter *waiter, uint64_t polls)
{
    for (uint64_t i = 1; i <= polls; i++) {
        muster_cpu_relax();
        /* acquire: pairs with the release exchange or store in muster_flag_publish() (wait.h), or the
         * release CAS in muster_flag_bump(), so the publisher's prior writes show with the target. */
        int state = check_value(atomic_load_explicit(flag, memory_order_acquire), target);
        if (state != 0)
            return state;
        if (i % DEADLINE_CHECK_INTERVAL == 0 && deadline_passed(waiter))
            return MUSTER_E_TIMEDOUT;
    }
    return 0;
}

/* Gives the CPU away once, then looks at the flag: 1 reached, 0 still
 * waiting, or an error. */
static int yield_once(muster_flag *flag, uint32_t target, const muster_waiter *waiter)
{
    /* relaxed: a statistics counter, ordered against nothing. */
    atomic_fetch_add_explicit(&yield_count, 1, memory_order_relaxed);
    if (waiter->watch_yields)
        muster_load_yield();
    else
        muster_cpu_yield();
    /* acquire: as in spin(). */
    return check_value(atomic_load_explicit(flag, memory_order_acquire), target);
}

/* Notes the waiter's CPU in its census; true when a team-mate was last seen
 * on the same CPU (the co-location guard, wait/census.h). */
static bool shares_cpu_with_mate(const muster_waiter *waiter)
{
    int cpu = muster_current_cpu();
    muster_census_note_cpu(waiter->census, waiter->census_id, cpu);
    return cpu >= 0 && muster_census_colocated(waiter->census, cpu);
}

/* The spin phase with the co-location guard: polls in chunks, looking at
 * the census before each, and yields instead of polling while a team-mate
 * shares the CPU.  A yield counts as a chunk of the budget, so a guarded
 * wait still ends in a sleep after about the same time.  polls ==
 * UINT64_MAX (ACTIVE) never runs out.  Returns 1 reached, 0 still
 * waiting, or an error. */
static int spin_guarded(muster_flag *flag, uint32_t target, const muster_waiter *waiter, uint64_t polls)
{
    uint64_t chunk = muster_spin_iterations(MUSTER_CENSUS_CHUNK_NS);
    while (polls > 0) {
        uint64_t step = polls < chunk ? polls : chunk;
        int state = shares_cpu_with_mate(waiter) ? yield_once(flag, target, waiter) : spin(flag, target, waiter, step);
        if (state != 0)
            return state;
        if (deadline_passed(waiter))
            return MUSTER_E_TIMEDOUT;
        if (polls != UINT64_MAX)
            polls -= step;
    }
    return 0;
}

/* `polls` of spinning: guarded by the census against a team-mate on the
 * CPU where the waiter has a census and does not share CPUs by it, plain
 * otherwise.  Returns 1 reached, 0 still waiting, or an error. */
static int spin_for(muster_flag *flag, uint32_t target, const muster_waiter *waiter, uint64_t polls)
{
    bool guarded = waiter->census != NULL && waiter->share_ns == 0;
    return guarded ? spin_guarded(flag, target, waiter, polls) : spin(flag, target, waiter, polls);
}

/* Whether a waiter watches the load (wait/load.h): muster_team_waiter
 * asks it of the default budget of a team that fits the CPUs; an explicit
 * budget, or ACTIVE, is taken at its word. */
static bool watches_load(const muster_waiter *waiter)
{
    return waiter->watch_load && waiter->policy == MUSTER_WAIT_HYBRID;
}

/* Whether an oversubscribed waiter's yields (its default budget's) stop
 * while the process is contended (wait/load.h): unless MUSTER_LOAD_WATCH=0
 * (muster_team_waiter). */
static bool yields_watched(const muster_waiter *waiter)
{
    return waiter->policy == MUSTER_WAIT_HYBRID && waiter->yields > 0 && waiter->watch_yields;
}

/* A probing yield (wait/load.h), then a look at the flag: 1 reached, 0
 * still waiting, or an error. */
static int probe_load(muster_flag *flag, uint32_t target)
{
    muster_load_probe();
    /* acquire: as in spin(). */
    return check_value(atomic_load_explicit(flag, memory_order_acquire), target);
}

/* The spin phase of a waiter that watches the load: the plain or guarded
 * spin in slices of MUSTER_LOAD_PROBE_NS, a probe after each but the last;
 * stops early (0) once the process is contended.  Returns 1 reached, 0
 * still waiting, or an error. */
static int spin_watching(muster_flag *flag, uint32_t target, const muster_waiter *waiter, uint64_t polls)
{
    uint64_t slice = muster_spin_iterations(MUSTER_LOAD_PROBE_NS);
    bool guarded = waiter->census != NULL && waiter->share_ns == 0;
    while (polls > 0) {
        uint64_t step = polls < slice ? polls : slice;
        int state = spin_for(flag, target, waiter, step);
        if (state != 0)
            return state;
        polls -= step;
        if (polls == 0)
            break;
        /* Beside a team-mate the guard's yields hand the CPU over already,
         * and a switch to a team-mate is no sign of anyone else's load. */
        if (guarded && shares_cpu_with_mate(waiter))
            continue;
        state = probe_load(flag, target);
        if (state != 0)
            return state;
        if (muster_load_contended())
            break;
    }
    return 0;
}

/* Gives the CPU away up to waiter->yields times (MUSTER_YIELDS_OVERSUBSCRIBED
 * says why).  Returns 1 reached, 0 still waiting, or an error. */
static int yield_cpu(muster_flag *flag, uint32_t target, const muster_waiter *waiter)
{
    for (unsigned k = 0; k < waiter->yields; k++) {
        int state = yield_once(flag, target, waiter);
        if (state != 0)
            return state;
    }
    return deadline_passed(waiter) ? MUSTER_E_TIMEDOUT : 0;
}

/* After a step of a phase that lasts until give_up: whether it is over,
 * with *state MUSTER_E_TIMEDOUT when the waiter's deadline has passed. */
static bool phase_over(const muster_waiter *waiter, uint64_t give_up, int *state)
{
    uint64_t now = muster_now_ns();
    if (waiter->deadline_ns != 0 && now >= waiter->deadline_ns) {
        *state = MUSTER_E_TIMEDOUT;
        return true;
    }
    return now >= give_up;
}

/* Whether a waiter with a yield phase (yield_ns) may yield now: not while
 * its yields are costly (wait/load.h), when it watches them. */
static bool yield_phase_open(const muster_waiter *waiter)
{
    return waiter->policy == MUSTER_WAIT_HYBRID && waiter->yield_ns > 0 &&
           !(waiter->watch_yields && muster_load_yields_costly());
}

/* The yield phase before a sleep: gives the CPU away for up to
 * waiter->yield_ns while the phase stays open.  Returns 1 reached, 0 still
 * waiting, or an error. */
static int yield_phase(muster_flag *flag, uint32_t target, const muster_waiter *waiter)
{
    uint64_t give_up = muster_now_ns() + waiter->yield_ns;
    while (yield_phase_open(waiter)) {
        int state = yield_once(flag, target, waiter);
        if (state != 0 || phase_over(waiter, give_up, &state))
            return state;
    }
    return 0;
}

/* The census phase (see muster_census): gives the CPU away while a CPU-mate
 * has still to arrive, polls in chunks while none has, for up to
 * waiter->share_ns.  Returns 1 reached, 0 still waiting, or an error. */
static int share_cpu(muster_flag *flag, uint32_t target, const muster_waiter *waiter)
{
    uint64_t chunk = muster_spin_iterations(MUSTER_CENSUS_CHUNK_NS);
    uint64_t give_up = muster_now_ns() + waiter->share_ns;
    for (;;) {
        int cpu = muster_current_cpu();
        bool cpu_needed = cpu < 0 || muster_census_cpu_needed(waiter->census, waiter->census_id, cpu);
        int state = cpu_needed ? yield_once(flag, target, waiter) : spin(flag, target, waiter, chunk);
        if (state != 0 || phase_over(waiter, give_up, &state))
            return state;
    }
}

/* prepare_to_sleep's "the word moved while announcing: look again" (not 1,
 * reached, nor a negative MUSTER_E_* code). */
#define WORD_MOVED 2

/* One look before a sleep: 1 reached, an error (MUSTER_E_TIMEDOUT too),
 * WORD_MOVED, or 0 with the word in *v and SLEEPING announced in it. */
static int prepare_to_sleep(muster_flag *flag, uint32_t target, const muster_waiter *waiter, uint32_t *v)
{
    /* acquire: as in spin(). */
    *v = atomic_load_explicit(flag, memory_order_acquire);
    int state = check_value(*v, target);
    if (state != 0)
        return state;
    if (deadline_passed(waiter))
        return MUSTER_E_TIMEDOUT;
    if (!(*v & MUSTER_FLAG_SLEEPING)) {
        /* relaxed: the announcement only has to be ordered against the
         * publisher's exchange on this same word, which RMW order does. */
        if (!atomic_compare_exchange_strong_explicit(flag, v, *v | MUSTER_FLAG_SLEEPING, memory_order_relaxed,
                                                     memory_order_relaxed))
            return WORD_MOVED;
        *v |= MUSTER_FLAG_SLEEPING;
    }
    /* relaxed: a statistics counter, read only by muster_wait_counters(). */
    atomic_fetch_add_explicit(&sleep_count, 1, memory_order_relaxed);
    return 0;
}

static int sleep_until(muster_flag *flag, uint32_t target, const muster_waiter *waiter)
{
    uint64_t slept_ns = muster_now_ns();
    for (;;) {
        uint32_t v;
        int state = prepare_to_sleep(flag, target, waiter, &v);
        if (state == WORD_MOVED)
            continue;
        if (state == 1)
            note_wake_delay(slept_ns);
        if (state != 0)
            return state;
        /* EINTR, ETIMEDOUT and spurious returns all loop back to re-check. */
        muster_futex_wait(flag, v, waiter->deadline_ns);
    }
}

/* Announces SLEEPING and sleeps once on the flag (or not at all, when it
 * moved meanwhile).  Returns 1 reached, 0 still waiting, or an error. */
static int sleep_once(muster_flag *flag, uint32_t target, const muster_waiter *waiter, uint64_t nap_ns)
{
    uint32_t v;
    int state = prepare_to_sleep(flag, target, waiter, &v);
    if (state != 0)
        return state == WORD_MOVED ? 0 : state;
    uint64_t until = waiter->deadline_ns;
    if (nap_ns > 0 && (until == 0 || until > muster_now_ns() + nap_ns))
        until = muster_now_ns() + nap_ns;
    muster_futex_wait(flag, v, until);
    return 0;
}

/* A working wait ends: 0, or its error; one that slept (since slept_at)
 * and was then reached adapts the budget. */
static int end_working_wait(const muster_waiter *waiter, int state, uint64_t slept_at)
{
    if (state == 1 && slept_at != 0)
        adapt_budget(waiter, muster_now_ns() - slept_at);
    return state == 1 ? 0 : state;
}

/* One step of a working wait's budget: what the plain wait would do for a
 * chunk of polls.  Sharing the CPU by the census (oversubscribed), the
 * bounded yields (oversubscribed, no census), or polling, guarded against a
 * co-located team-mate. */
static int working_step(muster_flag *flag, uint32_t target, const muster_waiter *waiter, uint64_t step)
{
    if (waiter->census != NULL && waiter->share_ns > 0) {
        int cpu = muster_current_cpu();
        bool needed = cpu < 0 || muster_census_cpu_needed(waiter->census, waiter->census_id, cpu);
        return needed ? yield_once(flag, target, waiter) : spin(flag, target, waiter, step);
    }
    if (waiter->yields > 0 && waiter->spin_iterations == 0)
        return yield_once(flag, target, waiter);
    if (waiter->census != NULL && shares_cpu_with_mate(waiter))
        return yield_once(flag, target, waiter);
    return spin(flag, target, waiter, step);
}

/* The program's request (muster_wait_request_spin_ns) where it applies: a
 * hybrid waiter whose team fits the CPUs.  UINT64_MAX: none. */
static uint64_t requested_budget(const muster_waiter *waiter)
{
    uint64_t requested = muster_wait_requested_spin_iterations();
    return requested != UINT64_MAX && waiter->policy == MUSTER_WAIT_HYBRID && waiter->yields == 0 ? requested
                                                                                                 : UINT64_MAX;
}

/* The polls a working wait spends before it sleeps: the plain wait's
 * budget (spin, then the oversubscribed yields or CPU sharing), or the
 * short contended spin (wait/load.h). */
static uint64_t working_budget(const muster_waiter *waiter, bool contended)
{
    if (waiter->policy == MUSTER_WAIT_ACTIVE)
        return UINT64_MAX;
    if (waiter->policy == MUSTER_WAIT_PASSIVE)
        return 0;
    uint64_t requested = requested_budget(waiter);
    if (requested != UINT64_MAX)
        return requested;
    if (contended)
        return muster_spin_iterations(MUSTER_SPIN_NS_CONTENDED);
    uint64_t budget = spin_budget(waiter);
    if (waiter->policy == MUSTER_WAIT_HYBRID && waiter->census != NULL && waiter->share_ns > 0)
        budget += muster_spin_iterations((int64_t)waiter->share_ns);
    else if (waiter->policy == MUSTER_WAIT_HYBRID && waiter->census == NULL)
        budget += (uint64_t)waiter->yields * muster_spin_iterations(MUSTER_CENSUS_CHUNK_NS);
    return budget;
}

/* In a working wait whose budget is spent: whether to yield once more
 * before sleeping (the yield phase, yield_ns), starting the phase's clock
 * in *yield_until at its first yield. */
static bool yield_phase_due(const muster_waiter *waiter, uint64_t *yield_until)
{
    if (!yield_phase_open(waiter))
        return false;
    uint64_t now = muster_now_ns();
    if (*yield_until == 0)
        *yield_until = now + waiter->yield_ns;
    return now < *yield_until;
}

/* A wait with work to do (muster_wait_work): between chunks of its budget
 * it does the work; once the budget is spent it sleeps, counted in the
 * work's sleepers, after one more look for work.  The budget is the plain
 * wait's (spin, then the oversubscribed yields or CPU sharing), and starts
 * again after each piece of work: the flag may be near. */
static int wait_working(muster_flag *flag, uint32_t target, const muster_waiter *waiter)
{
    const muster_wait_work *work = waiter->work;
    uint64_t chunk = muster_spin_iterations(MUSTER_CENSUS_CHUNK_NS);
    /* The load watch (wait/load.h): probes while spinning the budget, and
     * once contended a short budget, one probe before the first sleep. */
    bool watch = watches_load(waiter), probed = false;
    bool contended = watch && muster_load_contended();
    /* While yields are costly: no yields, and the short budget. */
    bool no_yields = (watch || yields_watched(waiter)) && muster_load_yields_costly();
    contended = contended || no_yields;
    uint64_t probe_every = muster_spin_iterations(MUSTER_LOAD_PROBE_NS), since_probe = 0;
    uint64_t budget = working_budget(waiter, contended);
    uint64_t slept_at = 0; /* when the sleeps since the last piece of work began */
    uint64_t last_sleep = 0; /* when the last sleep began (0: none since the last work) */
    uint64_t yield_until = 0; /* the end of the yield phase (yield_ns) once the budget is spent; 0: not begun */
    for (uint64_t left = budget;;) {
        /* acquire: as in spin(). */
        int state = check_value(atomic_load_explicit(flag, memory_order_acquire), target);
        if (state == 1 && last_sleep != 0)
            note_wake_delay(last_sleep);
        if (state != 0)
            return end_working_wait(waiter, state, slept_at);
        if (work->run(work->arg)) {
            left = budget;
            slept_at = last_sleep = yield_until = 0;
            continue;
        }
        if (left > 0) {
            uint64_t step = left < chunk ? left : chunk;
            state = no_yields ? spin(flag, target, waiter, step) : working_step(flag, target, waiter, step);
            if (left != UINT64_MAX)
                left -= step;
            if (state == 0 && watch && !contended && (since_probe += step) >= probe_every && left > 0 &&
                !(waiter->census != NULL && waiter->share_ns == 0 && shares_cpu_with_mate(waiter))) {
                since_probe = 0;
                state = probe_load(flag, target);
                if (state == 0 && muster_load_contended()) {
                    contended = true;
                    budget = working_budget(waiter, true);
                    left = 0;
                }
            }
        } else if (contended && !probed && (!no_yields || muster_load_renewal_due())) {
            /* An oversubscribed waiter renews by a yield's length alone: any
             * yield of its hands the CPU to a team-mate that waits for one. */
            probed = true;
            state = watch ? probe_load(flag, target) : yield_once(flag, target, waiter);
        } else if (last_sleep == 0 && !no_yields && yield_phase_due(waiter, &yield_until)) {
            state = yield_once(flag, target, waiter);
        } else {
            atomic_fetch_add(work->sleepers, 1); /* seq_cst: see muster_wait_work */
            bool found = work->run(work->arg);
            if (!found && slept_at == 0 && waiter->adaptive && !contended)
                slept_at = muster_now_ns();
            last_sleep = found ? 0 : muster_now_ns();
            state = found ? 0 : sleep_once(flag, target, waiter, work->nap_ns);
            atomic_fetch_sub(work->sleepers, 1);
            left = found ? budget : 0;
            if (found)
                slept_at = yield_until = 0;
        }
        if (state != 0)
            return end_working_wait(waiter, state, slept_at);
        if (deadline_passed(waiter))
            return MUSTER_E_TIMEDOUT;
    }
}

/* The spin phase of a plain wait: 1 reached, 0 still waiting, or an
 * error.  A waiter that watches the load spins its budget with probes, or
 * only MUSTER_SPIN_NS_CONTENDED while the process is contended
 * (*contended says which). */
static int spin_phase(muster_flag *flag, uint32_t target, const muster_waiter *waiter, bool *contended)
{
    if (waiter->policy == MUSTER_WAIT_PASSIVE)
        return 0;
    if (waiter->policy == MUSTER_WAIT_ACTIVE)
        return spin_for(flag, target, waiter, UINT64_MAX);
    uint64_t requested = requested_budget(waiter);
    if (requested != UINT64_MAX)
        return spin_for(flag, target, waiter, requested);
    if (!watches_load(waiter))
        return spin_for(flag, target, waiter, spin_budget(waiter));
    *contended = muster_load_contended();
    if (!*contended) {
        int state = spin_watching(flag, target, waiter, spin_budget(waiter));
        *contended = muster_load_contended();
        return state;
    }
    int state = spin_for(flag, target, waiter, muster_spin_iterations(MUSTER_SPIN_NS_CONTENDED));
    /* One probe before sleeping: it hands the CPU to whoever wants it and
     * renews (or lets lapse) the evidence; while yields are costly, only
     * as their hold runs out. */
    return state != 0 || (muster_load_yields_costly() && !muster_load_renewal_due()) ? state
                                                                                    : probe_load(flag, target);
}

int muster_wait_slow(muster_flag *flag, uint32_t target, const muster_waiter *waiter)
{
    if (waiter->work != NULL)
        return wait_working(flag, target, waiter);
    /* acquire: as in spin(). */
    int state = check_value(atomic_load_explicit(flag, memory_order_acquire), target);
    bool contended = false;
    if (state == 0)
        state = spin_phase(flag, target, waiter, &contended);
    /* The oversubscribed yields and CPU sharing hand the CPU to a
     * team-mate; while yields are costly they hand it to another process's
     * thread for its whole slice (wait/load.h): sleep instead. */
    if (state == 0 && waiter->policy == MUSTER_WAIT_HYBRID && !(yields_watched(waiter) && muster_load_yields_costly()))
        state = waiter->census != NULL ? share_cpu(flag, target, waiter) : yield_cpu(flag, target, waiter);
    if (state == 0)
        state = yield_phase(flag, target, waiter);
    if (state == 0 && waiter->stop_before_sleep)
        return MUSTER_WAIT_WOULD_SLEEP;
    if (state == 0) {
        /* A contended wait says nothing about the budget: the thread it
         * waited for was queued behind another process's. */
        bool adapts = waiter->adaptive && !contended;
        uint64_t slept_at = adapts ? muster_now_ns() : 0;
        state = sleep_until(flag, target, waiter);
        if (state == 1 && adapts)
            adapt_budget(waiter, muster_now_ns() - slept_at);
    }
    return state == 1 ? 0 : state;
}

void muster_flag_wake_sleepers(muster_flag *flag)
{
    stamp_wake();
    muster_futex_wake(flag, INT_MAX);
}

void muster_flag_bump(muster_flag *flag)
{
    /* relaxed: the CAS reads again. */
    uint32_t old = atomic_load_explicit(flag, memory_order_relaxed);
    uint32_t bumped;
    do
        bumped = muster_episode_next(old & MUSTER_FLAG_VALUE_MASK) | (old & MUSTER_FLAG_BROKEN);
    /* release: pairs with the waiters' acquire loads (spin(), muster_wait_reach()), as
     * muster_flag_publish's exchange, whose handshake this is: the RMW order on the word
     * decides whether SLEEPING is seen.  Relaxed on failure: the loop retries. */
    while (!atomic_compare_exchange_weak_explicit(flag, &old, bumped, memory_order_release, memory_order_relaxed));
    if (old & MUSTER_FLAG_SLEEPING)
        muster_flag_wake_sleepers(flag);
}

void muster_flag_nudge(muster_flag *flag)
{
    (void)muster_flag_nudge_some(flag, INT_MAX);
}

int muster_flag_nudge_some(muster_flag *flag, int count)
{
    /* relaxed: only looks for the SLEEPING bit; the waker's seq_cst
     * handshake on the work's sleepers count (muster_wait_work) is what
     * orders what it published before this look. */
    if (!(atomic_load_explicit(flag, memory_order_relaxed) & MUSTER_FLAG_SLEEPING))
        return 0;
    stamp_wake();
    return muster_futex_wake(flag, count);
}

void muster_flag_break(muster_flag *flag)
{
    /* seq_cst is the default here and abort is rare: no reason to weaken it. */
    uint32_t old = atomic_fetch_or(flag, MUSTER_FLAG_BROKEN);
    if (old & MUSTER_FLAG_SLEEPING)
        muster_flag_wake_sleepers(flag);
}

/* ---- spin calibration ---- */

static double ns_per_poll = 0.0;
static pthread_once_t calibration_once = PTHREAD_ONCE_INIT;

static void calibrate(void)
{
    muster_flag probe = 0;
    const unsigned polls = 2000; /* docs/tuning.md, "spin calibration" */
    double best = 1e9;
    /* Best of three: a preempted run only makes a poll look slower. */
    for (int run = 0; run < 3; run++) {
        uint64_t start = muster_now_ns();
        for (unsigned i = 0; i < polls; i++) {
            muster_cpu_relax();
            /* relaxed: only the cost of the load matters here. */
            (void)atomic_load_explicit(&probe, memory_order_relaxed);
        }
        double per = (double)(muster_now_ns() - start) / polls;
        if (per < best)
            best = per;
    }
    ns_per_poll = best > 0.5 ? best : 0.5;
}

uint64_t muster_spin_iterations(int64_t spin_ns)
{
    if (spin_ns <= 0)
        return 0;
    pthread_once(&calibration_once, calibrate);
    return (uint64_t)((double)spin_ns / ns_per_poll) + 1u;
}

/* ---- the program's request ---- */

static _Atomic int64_t requested_ns = -1;
static _Atomic uint64_t requested_polls = UINT64_MAX;

void muster_wait_request_spin_ns(int64_t spin_ns)
{
    if (spin_ns > MUSTER_MAX_SPIN_NS)
        spin_ns = MUSTER_MAX_SPIN_NS;
    /* relaxed (both): a setting each wait reads once; a wait that reads
     * the old one only spins its old budget. */
    atomic_store_explicit(&requested_polls, spin_ns < 0 ? UINT64_MAX : muster_spin_iterations(spin_ns),
                          memory_order_relaxed);
    atomic_store_explicit(&requested_ns, spin_ns < 0 ? -1 : spin_ns, memory_order_relaxed);
}

int64_t muster_wait_requested_spin_ns(void)
{
    return atomic_load_explicit(&requested_ns, memory_order_relaxed); /* relaxed: as above */
}

uint64_t muster_wait_requested_spin_iterations(void)
{
    return atomic_load_explicit(&requested_polls, memory_order_relaxed); /* relaxed: as above */
}
