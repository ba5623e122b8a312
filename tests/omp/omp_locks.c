/* Simple and nestable locks: omp_set/unset_lock guard a non-atomic update
 * with an occupancy check; omp_test_lock fails while another thread holds
 * the lock and succeeds once it is free; nestable locks count their
 * nesting (omp_test_nest_lock returns the new depth to the owner, 0 to
 * others); locks initialised with omp_init_lock_with_hint (looked up with
 * dlsym: gcc 12's libgomp does not export it; omp_init_lock otherwise;
 * called directly when built by clang);
 * init/destroy cycles. */
#include "corpus.h"

#define ITERS 200

typedef void (*init_hint_fn)(omp_lock_t *, omp_sync_hint_t);
typedef void (*init_nest_hint_fn)(omp_nest_lock_t *, omp_sync_hint_t);

static volatile long counter;
static volatile int inside;

static void guarded(uint64_t *seed)
{
    if (inside)
        FAIL("lock acquired while another thread held it");
    inside = 1;
    long v = counter;
    corpus_delay(seed, (corpus_rand(seed) & 63) == 0 ? 30 : 0);
    counter = v + 1;
    inside = 0;
}

/* T threads take `lock` ITERS times each, alternately with set and test. */
static void contend(omp_lock_t *lock, int T, const char *what)
{
    counter = 0;
    long test_successes = 0;
#pragma omp parallel reduction(+ : test_successes)
    {
        uint64_t seed = corpus_seed(omp_get_thread_num(), 23);
        for (int i = 0; i < ITERS; i++) {
            if (i % 2) {
                omp_set_lock(lock);
            } else {
                while (!omp_test_lock(lock))
                    corpus_delay(&seed, 0);
                test_successes++;
            }
            guarded(&seed);
            omp_unset_lock(lock);
        }
    }
    CHECK_EQ(counter, (long)T * ITERS, "%s: updates under the lock", what);
    CHECK_EQ(test_successes, (long)T * ITERS / 2, "%s: successful omp_test_lock calls", what);
}

int main(void)
{
    corpus_begin("omp_locks");
    int T = corpus_threads();
#ifdef __clang__
    /* LLVM's libomp has them, and an unversioned dlsym would find gcc's
     * (16-byte) nest lock in a runtime that serves both ABIs. */
    init_hint_fn init_hint = omp_init_lock_with_hint;
    init_nest_hint_fn init_nest_hint = omp_init_nest_lock_with_hint;
#else
    init_hint_fn init_hint = (init_hint_fn)dlsym(RTLD_DEFAULT, "omp_init_lock_with_hint");
    init_nest_hint_fn init_nest_hint = (init_nest_hint_fn)dlsym(RTLD_DEFAULT, "omp_init_nest_lock_with_hint");
#endif

    omp_lock_t lock;
    omp_init_lock(&lock);
    contend(&lock, T, "omp_init_lock");
    omp_destroy_lock(&lock);
    static const omp_sync_hint_t hints[] = {omp_sync_hint_none, omp_sync_hint_uncontended, omp_sync_hint_contended,
                                            omp_sync_hint_speculative,
                                            omp_sync_hint_contended | omp_sync_hint_nonspeculative};
    for (unsigned h = 0; h < sizeof hints / sizeof *hints; h++) {
        if (init_hint)
            init_hint(&lock, hints[h]);
        else
            omp_init_lock(&lock);
        char what[64];
        snprintf(what, sizeof what, "lock with hint %d", (int)hints[h]);
        contend(&lock, T, what);
        omp_destroy_lock(&lock);
    }

    /* omp_test_lock while another thread holds the lock. */
    omp_init_lock(&lock);
    int wrong = 0;
#pragma omp parallel num_threads(3) reduction(+ : wrong)
    {
        int id = omp_get_thread_num();
        if (id == 0)
            omp_set_lock(&lock);
#pragma omp barrier
        if (id != 0)
            wrong += omp_test_lock(&lock) != 0;
#pragma omp barrier
        if (id == 0)
            omp_unset_lock(&lock);
#pragma omp barrier
        if (id == 1) {
            wrong += omp_test_lock(&lock) != 1;
            omp_unset_lock(&lock);
        }
    }
    CHECK_EQ(wrong, 0, "wrong omp_test_lock results with the lock held elsewhere / free");
    omp_destroy_lock(&lock);

    /* Nestable locks. */
    omp_nest_lock_t nest;
    for (int variant = 0; variant < 2; variant++) {
        if (variant == 1 && init_nest_hint)
            init_nest_hint(&nest, omp_sync_hint_contended);
        else
            omp_init_nest_lock(&nest);
        wrong = 0;
#pragma omp parallel num_threads(3) reduction(+ : wrong)
        {
            int id = omp_get_thread_num();
            if (id == 0) {
                omp_set_nest_lock(&nest);
                omp_set_nest_lock(&nest);
                omp_set_nest_lock(&nest);
                wrong += omp_test_nest_lock(&nest) != 4;
            }
#pragma omp barrier
            if (id != 0)
                wrong += omp_test_nest_lock(&nest) != 0;
#pragma omp barrier
            if (id == 0) {
                for (int k = 0; k < 3; k++)
                    omp_unset_nest_lock(&nest);
            }
#pragma omp barrier
            /* Still held once. */
            if (id == 2)
                wrong += omp_test_nest_lock(&nest) != 0;
#pragma omp barrier
            if (id == 0)
                omp_unset_nest_lock(&nest);
#pragma omp barrier
            if (id == 2) {
                wrong += omp_test_nest_lock(&nest) != 1;
                wrong += omp_test_nest_lock(&nest) != 2;
                omp_unset_nest_lock(&nest);
                omp_unset_nest_lock(&nest);
            }
        }
        CHECK_EQ(wrong, 0, "wrong nestable lock results (variant %d)", variant);

        /* Contended nested acquisitions. */
        counter = 0;
#pragma omp parallel
        {
            uint64_t seed = corpus_seed(omp_get_thread_num(), 29);
            for (int i = 0; i < ITERS / 2; i++) {
                omp_set_nest_lock(&nest);
                if (i % 2)
                    omp_set_nest_lock(&nest);
                else
                    while (!omp_test_nest_lock(&nest))
                        corpus_delay(&seed, 0);
                guarded(&seed);
                omp_unset_nest_lock(&nest);
                guarded(&seed);
                omp_unset_nest_lock(&nest);
            }
        }
        CHECK_EQ(counter, (long)T * ITERS, "updates under a nestable lock (variant %d)", variant);
        omp_destroy_nest_lock(&nest);
    }

    /* Many locks, init and destroy in the threads. */
    long total = 0;
#pragma omp parallel reduction(+ : total)
    for (int r = 0; r < 20; r++) {
        omp_lock_t mine;
        omp_init_lock(&mine);
        omp_set_lock(&mine);
        omp_unset_lock(&mine);
        total += omp_test_lock(&mine);
        omp_unset_lock(&mine);
        omp_destroy_lock(&mine);
    }
    CHECK_EQ(total, 20L * T, "omp_test_lock successes on fresh per-thread locks");
    corpus_summary("acquisitions_per_thread=%d hints=%u ok", ITERS, (unsigned)(sizeof hints / sizeof *hints));
    return 0;
}
