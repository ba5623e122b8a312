/* Combined parallel worksharing constructs (GOMP_parallel_loop_* and
 * GOMP_parallel_sections): `parallel for` with each schedule and modifier,
 * with num_threads and if, and `parallel sections`; every iteration or
 * section runs once, and the team is the requested one. */
#include "corpus.h"

#define N 999

static int hits[N];
static int team;

static void reset(void)
{
    memset(hits, 0, sizeof hits);
    team = 0;
}

static void hit(int i)
{
#pragma omp atomic
    hits[i]++;
#pragma omp atomic write
    team = omp_get_num_threads();
}

static void check(const char *what, int want_team)
{
    for (int i = 0; i < N; i++)
        CHECK_EQ(hits[i], 1, "%s: runs of iteration %d", what, i);
    CHECK_EQ(team, want_team, "%s: team size", what);
}

int main(void)
{
    corpus_begin("omp_combined");
    int T = corpus_threads();
    int loops = 0;
#define PFOR(sched, name, want)                                                                        \
    do {                                                                                               \
        reset();                                                                                       \
        _Pragma(sched) for (int i = 0; i < N; i++) hit(i);                                             \
        check(name, want);                                                                             \
        loops++;                                                                                       \
    } while (0)
    PFOR("omp parallel for schedule(static)", "static", T);
    PFOR("omp parallel for schedule(static, 5)", "static,5", T);
    PFOR("omp parallel for schedule(dynamic)", "dynamic", T);
    PFOR("omp parallel for schedule(dynamic, 8)", "dynamic,8", T);
    PFOR("omp parallel for schedule(guided)", "guided", T);
    PFOR("omp parallel for schedule(guided, 4)", "guided,4", T);
    PFOR("omp parallel for schedule(runtime)", "runtime", T);
    PFOR("omp parallel for schedule(auto)", "auto", T);
    PFOR("omp parallel for schedule(monotonic: dynamic, 3)", "monotonic dynamic,3", T);
    PFOR("omp parallel for schedule(monotonic: guided)", "monotonic guided", T);
    PFOR("omp parallel for schedule(monotonic: runtime)", "monotonic runtime", T);
    PFOR("omp parallel for schedule(nonmonotonic: dynamic)", "nonmonotonic dynamic", T);
    PFOR("omp parallel for schedule(nonmonotonic: guided, 2)", "nonmonotonic guided,2", T);
    PFOR("omp parallel for schedule(nonmonotonic: runtime)", "nonmonotonic runtime", T);
    PFOR("omp parallel for schedule(dynamic, 2) num_threads(3)", "dynamic,2 num_threads(3)", 3);
    PFOR("omp parallel for schedule(guided) num_threads(5)", "guided num_threads(5)", 5);
    PFOR("omp parallel for schedule(runtime) num_threads(2)", "runtime num_threads(2)", 2);
    PFOR("omp parallel for schedule(static, 2) num_threads(7)", "static,2 num_threads(7)", 7);
    PFOR("omp parallel for schedule(dynamic) if(0)", "dynamic if(0)", 1);
    PFOR("omp parallel for schedule(guided, 3) if(0)", "guided,3 if(0)", 1);
    PFOR("omp parallel for schedule(nonmonotonic: dynamic, 4) num_threads(1)", "dynamic,4 num_threads(1)", 1);

    /* Combined loops back to back with changing team sizes. */
    long long total = 0;
    for (int r = 0; r < 12; r++) {
        long long s = 0;
#pragma omp parallel for schedule(dynamic, 5) num_threads(1 + r % 5) reduction(+ : s)
        for (int i = 0; i < 100 + r; i++)
            s += i;
        CHECK_EQ(s, (long long)(100 + r) * (99 + r) / 2, "combined loop %d of changing team size", r);
        total += s;
    }
    loops += 12;

    /* parallel sections. */
    int sec[7] = {0};
    int secteam = 0;
#pragma omp parallel sections num_threads(3)
    {
#pragma omp section
        {
            sec[0]++;
            secteam = omp_get_num_threads();
        }
#pragma omp section
        sec[1]++;
#pragma omp section
        sec[2]++;
#pragma omp section
        sec[3]++;
#pragma omp section
        sec[4]++;
#pragma omp section
        sec[5]++;
#pragma omp section
        sec[6]++;
    }
    for (int k = 0; k < 7; k++)
        CHECK_EQ(sec[k], 1, "parallel sections: runs of section %d", k);
    CHECK_EQ(secteam, 3, "parallel sections num_threads(3): team size");
    int sec2[2] = {0};
#pragma omp parallel sections
    {
#pragma omp section
        sec2[0] += 1 + (omp_get_num_threads() != T) * 100;
#pragma omp section
        sec2[1] += 1;
    }
    CHECK(sec2[0] == 1 && sec2[1] == 1, "parallel sections (default team): runs %d, %d", sec2[0], sec2[1]);
    corpus_summary("loops=%d changing_total=%lld sections=9 ok", loops, total);
    return 0;
}
