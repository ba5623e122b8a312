/* The team side of task scheduling (src/omp/scheduler.c), driven directly
 * from one thread: a thief tries the member it last stole from first, then
 * every other member once, never itself; what it takes comes out oldest
 * first; the prioritized queue goes highest first, first come first served
 * within a priority, and a restricted taker skips what it may not run
 * without disturbing it. */
#include <stdint.h>

#include "omp/scheduler.h"
#include "stress_common.h"

static void *item(uintptr_t k) { return (void *)(k * 16 + 16); }

static void test_last_victim_first(void)
{
    enum { N = 5 };
    muster_omp_team_tasks *tt = muster_omp_team_tasks_create(N);
    CHECK(tt != NULL, "create");
    muster_omp_thief thief = muster_omp_thief_for(0);
    CHECK(muster_omp_tasks_steal(tt, 0, &thief) == NULL, "nothing to steal from empty deques");
    CHECK(thief.last_victim == MUSTER_OMP_NO_VICTIM, "no victim after a failed round");
    /* Member 3 has two tasks: the thief finds it, oldest first. */
    CHECK(muster_omp_tasks_push(tt, 3, item(1)) && muster_omp_tasks_push(tt, 3, item(2)), "push");
    CHECK(muster_omp_tasks_steal(tt, 0, &thief) == item(1), "the oldest of member 3's tasks");
    CHECK(thief.last_victim == 3, "member 3 is the last victim (%u)", thief.last_victim);
    /* Now members 1, 2 and 4 have work too; for many random first picks
     * the thief goes back to member 3 while it has any. */
    for (unsigned round = 0; round < 40; round++) {
        muster_omp_tasks_push_again(tt, 1, item(100 + round));
        muster_omp_tasks_push_again(tt, 2, item(200 + round));
        muster_omp_tasks_push_again(tt, 4, item(400 + round));
        muster_omp_tasks_push_again(tt, 3, item(300 + round));
        thief.seed = round * 7919u + 1u;
        void *got = muster_omp_tasks_steal(tt, 0, &thief);
        CHECK(got == item(2) || (round > 0 && got == item(300 + round - 1)) || got == item(300 + round),
              "round %u: took %p, not member 3's", round, got);
        CHECK(thief.last_victim == 3, "round %u: last victim %u", round, thief.last_victim);
    }
    /* Member 3 emptied: the thief moves on and remembers the new victim;
     * it never steals from itself. */
    while (muster_omp_tasks_take_own(tt, 3) != NULL)
        ;
    muster_omp_tasks_push_again(tt, 0, item(999));
    void *got = muster_omp_tasks_steal(tt, 0, &thief);
    CHECK(got != NULL && got != item(999), "a task from another member, not its own (%p)", got);
    CHECK(thief.last_victim == 1 || thief.last_victim == 2 || thief.last_victim == 4, "new victim %u",
          thief.last_victim);
    muster_omp_team_tasks_destroy(tt);
}

/* Never itself, and every other member is visited in one round: with work
 * only in member k, a thief always finds it, whatever its random start. */
static void test_round_visits_everyone(void)
{
    enum { N = 7 };
    muster_omp_team_tasks *tt = muster_omp_team_tasks_create(N);
    CHECK(tt != NULL, "create");
    for (unsigned thief_id = 0; thief_id < N; thief_id++)
        for (unsigned k = 0; k < N; k++) {
            if (k == thief_id)
                continue;
            for (unsigned s = 0; s < 5; s++) {
                muster_omp_tasks_push_again(tt, k, item(k));
                muster_omp_thief thief = {.seed = s * 40503u + thief_id, .last_victim = (k + 1) % N};
                CHECK(muster_omp_tasks_steal(tt, thief_id, &thief) == item(k),
                      "thief %u, seed %u: member %u's task not found", thief_id, s, k);
            }
        }
    muster_omp_team_tasks_destroy(tt);
}

static bool odd_only(void *task, const void *arg)
{
    (void)arg;
    return ((uintptr_t)task / 16 - 1) % 2 == 1; /* item(k) for odd k */
}

static void test_prioritized(void)
{
    muster_omp_team_tasks *tt = muster_omp_team_tasks_create(3);
    CHECK(tt != NULL, "create");
    CHECK(muster_omp_tasks_take_prioritized(tt, NULL, NULL) == NULL, "empty");
    int prio[] = {3, 9, 3, 1, 9, 5};
    for (uintptr_t k = 0; k < 6; k++)
        CHECK(muster_omp_tasks_push_prioritized(tt, item(k), prio[k], false), "push %lu", (unsigned long)k);
    /* A taker that may run only odd-numbered items: 1 (9), then 5 (5),
     * then 3 (1); the even ones stay. */
    CHECK(muster_omp_tasks_take_prioritized(tt, odd_only, NULL) == item(1), "odd: the 9");
    CHECK(muster_omp_tasks_take_prioritized(tt, odd_only, NULL) == item(5), "odd: the 5");
    CHECK(muster_omp_tasks_take_prioritized(tt, odd_only, NULL) == item(3), "odd: the 1");
    CHECK(muster_omp_tasks_take_prioritized(tt, odd_only, NULL) == NULL, "odd: none left");
    /* Everyone else: 4 (9), then 0 and 2 (3, in arrival order). */
    CHECK(muster_omp_tasks_take_prioritized(tt, NULL, NULL) == item(4), "the other 9");
    CHECK(muster_omp_tasks_take_prioritized(tt, NULL, NULL) == item(0), "first 3 first");
    CHECK(muster_omp_tasks_take_prioritized(tt, NULL, NULL) == item(2), "then the second 3");
    CHECK(muster_omp_tasks_take_prioritized(tt, NULL, NULL) == NULL, "empty again");
    CHECK(!muster_omp_tasks_visible(tt), "nothing visible");
    muster_omp_team_tasks_destroy(tt);
}

int main(void)
{
    test_last_victim_first();
    test_round_visits_everyone();
    test_prioritized();
    printf("test_omp_scheduler: ok\n");
    return 0;
}
