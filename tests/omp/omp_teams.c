/* Host teams and the loops they share out (issue #38):
 *   - teams distribute dist_schedule(static, c): chunk k of c iterations
 *     goes to team k mod num_teams, and dist_schedule(static) gives each
 *     team at most one block, in team order;
 *   - teams distribute parallel for: every thread of the inner parallel
 *     region answers omp_get_team_num() and omp_get_num_teams() as its team
 *     does (muster's worker threads once answered team 0);
 *   - teams distribute parallel for with num_threads(n) and thread_limit(n),
 *     n from {1, 10, 100}: each iteration runs once, and no inner team is
 *     larger than n.  (n = 10000, thousands of threads per run, is
 *     tests/omp_unit/test_omp_big_team's, run alone.)
 *   - without num_teams (and OMP_NUM_TEAMS unset) teams and target teams
 *     form as many teams as the ABI's own runtime: libgomp 3 and 1, libomp
 *     1 and 1 (muster once formed 3 for clang's teams, so target teams
 *     loop bodies, which clang 14 runs in every team, ran three times).
 *     The summary says how many, to be compared with the peer's.
 * How many teams a runtime forms for num_teams(4) is its own (libomp forms
 * fewer on a small machine), so the summary leaves it out. */
#include <stdatomic.h>

#include "corpus.h"

#define N 1000
#define MAX_TEAMS 4

/* Which team ran each iteration of a `teams distribute` loop, and how many
 * teams the league had. */
typedef struct league_map {
    int team_of[N];
    int nteams;
} league_map;

static void check_chunks_round_robin(const league_map *m, int chunk, const char *construct)
{
    CHECK(m->nteams >= 1 && m->nteams <= MAX_TEAMS, "%s: omp_get_num_teams() = %d for num_teams(%d)", construct,
          m->nteams, MAX_TEAMS);
    for (int i = 0; i < N; i++)
        CHECK_EQ(m->team_of[i], (i / chunk) % m->nteams, "%s dist_schedule(static, %d): team of iteration %d",
                 construct, chunk, i);
}

static void distribute_chunked(int chunk)
{
    league_map m = {.nteams = 0};
    memset(m.team_of, -1, sizeof m.team_of);
#pragma omp teams distribute num_teams(MAX_TEAMS) dist_schedule(static, chunk) shared(m)
    for (int i = 0; i < N; i++) {
        m.team_of[i] = omp_get_team_num();
        if (i == 0)
            m.nteams = omp_get_num_teams();
    }
    check_chunks_round_robin(&m, chunk, "teams distribute");
}

/* Inside the inner parallel region every thread records its team, and
 * counts a thread whose team count differs from the league's. */
static void distribute_parallel_chunked(int chunk)
{
    league_map m = {.nteams = 0};
    memset(m.team_of, -1, sizeof m.team_of);
    _Atomic int counts_seen[MAX_TEAMS + 1] = {0};
#pragma omp teams distribute parallel for num_teams(MAX_TEAMS) dist_schedule(static, chunk) shared(m, counts_seen)
    for (int i = 0; i < N; i++) {
        m.team_of[i] = omp_get_team_num();
        int n = omp_get_num_teams();
        if (n >= 1 && n <= MAX_TEAMS)
            atomic_store(&counts_seen[n], 1);
        else
            atomic_store(&counts_seen[0], 1);
    }
    int kinds = 0;
    for (int n = 1; n <= MAX_TEAMS; n++)
        if (counts_seen[n]) {
            m.nteams = n;
            kinds++;
        }
    CHECK(!counts_seen[0] && kinds == 1, "teams distribute parallel for: threads disagree on omp_get_num_teams()");
    check_chunks_round_robin(&m, chunk, "teams distribute parallel for");
}

static void distribute_blocks(void)
{
    league_map m = {.nteams = 0};
    memset(m.team_of, -1, sizeof m.team_of);
#pragma omp teams distribute num_teams(MAX_TEAMS) dist_schedule(static) shared(m)
    for (int i = 0; i < N; i++) {
        m.team_of[i] = omp_get_team_num();
        if (i == 0)
            m.nteams = omp_get_num_teams();
    }
    CHECK_EQ(m.team_of[0], 0, "dist_schedule(static): team of iteration 0");
    for (int i = 1; i < N; i++)
        CHECK(m.team_of[i] == m.team_of[i - 1] || m.team_of[i] == m.team_of[i - 1] + 1,
              "dist_schedule(static): iteration %d on team %d after team %d (not one block per team, in order)", i,
              m.team_of[i], m.team_of[i - 1]);
    CHECK(m.team_of[N - 1] < m.nteams, "dist_schedule(static): last iteration on team %d of %d", m.team_of[N - 1],
          m.nteams);
}

/* Each iteration once, no inner team above `limit`.  `clause` names which
 * clause set it, for the messages. */
static void check_limited(const int *runs, int widest, int limit, const char *clause)
{
    for (int i = 0; i < N; i++)
        CHECK_EQ(runs[i], 1, "%s(%d): runs of iteration %d", clause, limit, i);
    CHECK(widest >= 1 && widest <= limit, "%s(%d): an inner team of %d threads", clause, limit, widest);
}

static void limited_teams(int limit)
{
    int runs[N] = {0}, widest = 0;
#pragma omp teams distribute parallel for num_teams(2) num_threads(limit) reduction(max : widest) shared(runs)
    for (int i = 0; i < N; i++) {
        runs[i]++;
        widest = omp_get_num_threads() > widest ? omp_get_num_threads() : widest;
    }
    check_limited(runs, widest, limit, "num_threads");
    memset(runs, 0, sizeof runs);
    widest = 0;
#pragma omp teams distribute parallel for num_teams(2) thread_limit(limit) reduction(max : widest) shared(runs)
    for (int i = 0; i < N; i++) {
        runs[i]++;
        widest = omp_get_num_threads() > widest ? omp_get_num_threads() : widest;
    }
    check_limited(runs, widest, limit, "thread_limit");
}

/* How many teams `teams` and `target teams` form without num_teams. */
static void default_league_sizes(int *host, int *target)
{
    int h = -1, t = -1;
#pragma omp teams shared(h)
    if (omp_get_team_num() == 0)
        h = omp_get_num_teams();
#pragma omp target teams map(from : t)
    if (omp_get_team_num() == 0)
        t = omp_get_num_teams();
    CHECK(h >= 1 && t >= 1, "teams without num_teams: %d and %d teams", h, t);
    *host = h;
    *target = t;
}

int main(void)
{
    corpus_begin("omp_teams");
    corpus_threads();
    static const int chunks[] = {1, 3, 7, 64};
    for (unsigned k = 0; k < sizeof chunks / sizeof chunks[0]; k++) {
        distribute_chunked(chunks[k]);
        distribute_parallel_chunked(chunks[k]);
    }
    distribute_blocks();
    static const int limits[] = {1, 10, 100};
    for (unsigned k = 0; k < sizeof limits / sizeof limits[0]; k++)
        limited_teams(limits[k]);
    int host_teams, target_teams;
    default_league_sizes(&host_teams, &target_teams);
    corpus_summary("chunks=4 limits=3 default_teams=%d target_default_teams=%d", host_teams, target_teams);
    return 0;
}
