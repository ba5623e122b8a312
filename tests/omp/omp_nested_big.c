/* Nested teams far beyond the CPUs (issue #31): 8 x 8 two levels deep and
 * 4 x 4 x 4 three levels deep, round after round, each innermost team
 * doing a worksharing loop and a barrier.  Every innermost body must run
 * once per round, each inner loop's sum be right, and the run end (the
 * harness's timeout bounds it under every wait policy).  On muster the
 * threads must be reused: after the first round of each shape no new
 * thread runs these regions (libgomp makes threads for nested teams again
 * and again: thousands over the rounds).  The summary is the same on every
 * runtime; the thread counts are checked on muster only. */
#include <stdatomic.h>
#include <sys/syscall.h>

#include "corpus.h"

enum { ROUNDS = 30, MAX_SEEN = 4096 };

static _Atomic int seen_count;
static _Atomic int seen[MAX_SEEN];

/* Notes the calling thread's kernel id once. */
static void note_thread(void)
{
    static _Thread_local int noted;
    if (noted)
        return;
    noted = 1;
    int slot = atomic_fetch_add(&seen_count, 1);
    if (slot < MAX_SEEN)
        atomic_store(&seen[slot], (int)syscall(SYS_gettid));
}

/* A team's share of work: a loop whose sum each member checks after the
 * barrier.  Returns 1 when the sum is wrong. */
static int team_work(long *sum)
{
#pragma omp single
    *sum = 0;
#pragma omp for reduction(+ : sum[0])
    for (int i = 0; i < 64; i++)
        sum[0] += i;
#pragma omp barrier
    return *sum != 64 * 63 / 2;
}

int main(void)
{
    corpus_begin("omp_nested_big");
    omp_set_dynamic(0);
    long two = 0, three = 0;
    int wrong = 0;
    int after_first[2] = {0, 0};
    omp_set_max_active_levels(2);
    for (int round = 0; round < ROUNDS; round++) {
        if (round == 1)
            after_first[0] = atomic_load(&seen_count);
#pragma omp parallel num_threads(8) reduction(+ : wrong, two)
        {
            note_thread();
            long sum;
#pragma omp parallel num_threads(8) reduction(+ : wrong, two) /* sum: the outer thread's, the inner team's to share */
            {
                note_thread();
                wrong += team_work(&sum);
                two++;
            }
        }
    }
    int after_two = atomic_load(&seen_count);
    omp_set_max_active_levels(3);
    for (int round = 0; round < ROUNDS; round++) {
        if (round == 1)
            after_first[1] = atomic_load(&seen_count);
#pragma omp parallel num_threads(4) reduction(+ : wrong, three)
#pragma omp parallel num_threads(4) reduction(+ : wrong, three)
        {
            long sum;
#pragma omp parallel num_threads(4) reduction(+ : wrong, three) /* sum shared by the innermost team */
            {
                note_thread();
                wrong += team_work(&sum);
                three++;
            }
        }
    }
    CHECK_EQ(wrong, 0, "inner loops with a wrong sum");
    CHECK_EQ(two, 64L * ROUNDS, "innermost bodies, 8 x 8");
    CHECK_EQ(three, 64L * ROUNDS, "innermost bodies, 4 x 4 x 4");
    int total = atomic_load(&seen_count);
    fprintf(stderr, "omp_nested_big: distinct threads: 8 x 8 after its first round %d, after %d rounds %d; "
            "4 x 4 x 4 after its first round %d, after %d rounds %d\n", after_first[0], ROUNDS, after_two,
            after_first[1], ROUNDS, total);
    if (corpus_is_runtime(corpus_object_of(dlsym(RTLD_DEFAULT, "GOMP_parallel")), "muster")) {
        CHECK(after_two == after_first[0], "8 x 8: %d new threads after the first round", after_two - after_first[0]);
        CHECK(total == after_first[1], "4 x 4 x 4: %d new threads after the first round", total - after_first[1]);
    }
    corpus_summary("rounds=%d innermost=%ld,%ld ok", ROUNDS, two, three);
    return 0;
}
