/* Nested parallel regions: with nesting off (max-active-levels 1) an inner
 * region is a team of one, but still a new level; with nesting on
 * (omp_set_max_active_levels) inner regions get their own teams.  Checks
 * omp_get_level, omp_get_active_level, omp_get_ancestor_thread_num,
 * omp_get_team_size and omp_get_thread_num at every level; and the
 * deprecated omp_set_nested / omp_get_nested. */
#include "corpus.h"

#define OUTER 3
#define INNER 2

static int fails;

/* Checks the queries of the calling thread: levels 1..level with the thread
 * numbers `ids` and team sizes `sizes` (index = level). */
static void check_levels(int level, const int *ids, const int *sizes, const char *where)
{
    int active = 0;
    for (int l = 1; l <= level; l++)
        active += sizes[l] > 1;
    int bad = 0;
    bad |= omp_get_level() != level;
    bad |= omp_get_active_level() != active;
    bad |= omp_in_parallel() != (active > 0);
    bad |= omp_get_thread_num() != ids[level];
    bad |= omp_get_num_threads() != sizes[level];
    bad |= omp_get_ancestor_thread_num(0) != 0 || omp_get_team_size(0) != 1;
    for (int l = 1; l <= level; l++)
        bad |= omp_get_ancestor_thread_num(l) != ids[l] || omp_get_team_size(l) != sizes[l];
    bad |= omp_get_ancestor_thread_num(level + 1) != -1 || omp_get_team_size(level + 1) != -1;
    if (bad) {
        fprintf(stderr, "%s: level %d (want %d) active %d (want %d) thread %d (want %d) of %d (want %d)\n", where,
                omp_get_level(), level, omp_get_active_level(), active, omp_get_thread_num(), ids[level],
                omp_get_num_threads(), sizes[level]);
        for (int l = 0; l <= level + 1; l++)
            fprintf(stderr, "  ancestor(%d)=%d (want %d) team_size(%d)=%d (want %d)\n", l,
                    omp_get_ancestor_thread_num(l), l <= level ? ids[l] : -1, l, omp_get_team_size(l),
                    l <= level ? sizes[l] : -1);
#pragma omp atomic
        fails++;
    }
}

/* Outer team of `outer`, inner of `inner` requested, innermost of 2
 * requested; `max_active` is max-active-levels.  Returns the executions of
 * the innermost body; checks that each (outer, inner) pair ran once. */
static int nest(int outer, int inner, int max_active, const char *what)
{
    omp_set_max_active_levels(max_active);
    CHECK_EQ(omp_get_max_active_levels(), max_active, "omp_get_max_active_levels after setting it (%s)", what);
    int seen[8][8] = {{0}};
    int innermost = 0;
    fails = 0;
    int outer_size = max_active > 0 ? outer : 1;
    int inner_size = (outer_size > 1) < max_active ? inner : 1;
#pragma omp parallel num_threads(outer)
    {
        int ids[4] = {0, omp_get_thread_num(), 0, 0};
        int sizes[4] = {1, outer_size, 0, 0};
        check_levels(1, ids, sizes, what);
#pragma omp parallel num_threads(inner) firstprivate(ids, sizes)
        {
            ids[2] = omp_get_thread_num();
            sizes[2] = inner_size;
            check_levels(2, ids, sizes, what);
            if (ids[1] < 8 && ids[2] < 8)
#pragma omp atomic
                seen[ids[1]][ids[2]]++;
            int active = (outer_size > 1) + (inner_size > 1);
            int third = active < max_active ? 2 : 1;
#pragma omp parallel num_threads(2) firstprivate(ids, sizes)
            {
                ids[3] = omp_get_thread_num();
                sizes[3] = third;
                check_levels(3, ids, sizes, what);
#pragma omp atomic
                innermost++;
            }
        }
    }
    CHECK_EQ(fails, 0, "threads with wrong level queries (%s; details above)", what);
    for (int o = 0; o < 8; o++)
        for (int i = 0; i < 8; i++)
            CHECK_EQ(seen[o][i], o < outer_size && i < inner_size, "runs of inner thread %d under outer thread %d (%s)", i, o, what);
    return innermost;
}

int main(void)
{
    corpus_begin("omp_nested");
    corpus_threads();
    /* Nesting is off by default. */
    CHECK_EQ(omp_get_max_active_levels(), 1, "default omp_get_max_active_levels (OMP_MAX_ACTIVE_LEVELS unset)");
    CHECK(omp_get_supported_active_levels() >= 2, "omp_get_supported_active_levels() = %d",
          omp_get_supported_active_levels());
    int r[6];
    r[0] = nest(OUTER, INNER, 1, "nesting off");
    CHECK_EQ(r[0], OUTER, "innermost bodies with nesting off");
    r[1] = nest(1, 3, 1, "inactive outer region, nesting off");
    CHECK_EQ(r[1], 3, "innermost bodies under an inactive outer region");
    r[2] = nest(OUTER, INNER, 2, "two active levels");
    CHECK_EQ(r[2], OUTER * INNER, "innermost bodies with two active levels");
    r[3] = nest(OUTER, INNER, 3, "three active levels");
    CHECK_EQ(r[3], OUTER * INNER * 2, "innermost bodies with three active levels");
    r[4] = nest(OUTER, INNER, 0, "max-active-levels 0");
    CHECK_EQ(r[4], 1, "innermost bodies with max-active-levels 0");
    r[5] = nest(OUTER, 1, 8, "inner num_threads(1), deep nesting allowed");
    CHECK_EQ(r[5], OUTER * 2, "innermost bodies under inner teams of one");
    omp_set_max_active_levels(1);

    /* The deprecated omp_set_nested / omp_get_nested. */
    CHECK_EQ(omp_get_nested(), 0, "omp_get_nested() by default");
    omp_set_nested(1);
    CHECK_EQ(omp_get_nested(), 1, "omp_get_nested() after omp_set_nested(1)");
    CHECK(omp_get_max_active_levels() > 1, "omp_get_max_active_levels() = %d after omp_set_nested(1)",
          omp_get_max_active_levels());
    int inner_team = 0;
#pragma omp parallel num_threads(2)
#pragma omp parallel num_threads(3)
    if (omp_get_thread_num() == 0)
#pragma omp atomic write
        inner_team = omp_get_num_threads();
    CHECK_EQ(inner_team, 3, "inner team after omp_set_nested(1)");
    omp_set_nested(0);
    CHECK_EQ(omp_get_nested(), 0, "omp_get_nested() after omp_set_nested(0)");
    CHECK_EQ(omp_get_max_active_levels(), 1, "omp_get_max_active_levels() after omp_set_nested(0)");

    /* A negative value is ignored. */
    omp_set_max_active_levels(-3);
    CHECK_EQ(omp_get_max_active_levels(), 1, "omp_get_max_active_levels after omp_set_max_active_levels(-3)");
    corpus_summary("innermost=%d,%d,%d,%d,%d,%d", r[0], r[1], r[2], r[3], r[4], r[5]);
    return 0;
}
