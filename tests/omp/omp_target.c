/* Target constructs with no offload device (compiled with
 * -foffload=disable, so they run on the host): target with map clauses,
 * target teams distribute parallel for with a reduction, target data with
 * target update, target enter/exit data, nowait + taskwait; host teams
 * (omp_get_num_teams/omp_get_team_num).  Inside target regions
 * omp_is_initial_device() must be true.  The device queries: no devices. */
#include "corpus.h"

#define N 1000

int main(void)
{
    corpus_begin("omp_target");
    corpus_threads();
    static int a[N], b[N];
    for (int i = 0; i < N; i++)
        a[i] = i;
    int initial = -1;
    long sum = 0;
#pragma omp target map(to : a) map(from : b) map(tofrom : initial)
    {
        initial = omp_is_initial_device();
        for (int i = 0; i < N; i++)
            b[i] = 2 * a[i];
    }
    CHECK_EQ(initial, 1, "omp_is_initial_device() in a target region without devices");
    for (int i = 0; i < N; i++)
        CHECK_EQ(b[i], 2 * i, "b[%d] after target", i);

#pragma omp target teams distribute parallel for map(to : a) reduction(+ : sum)
    for (int i = 0; i < N; i++)
        sum += a[i];
    CHECK_EQ(sum, (long)N * (N - 1) / 2, "target teams distribute parallel for reduction");

    /* target data + target update. */
    static int c[N];
#pragma omp target data map(tofrom : c)
    {
        for (int i = 0; i < N; i++)
            c[i] = i;
#pragma omp target update to(c)
#pragma omp target map(tofrom : c)
        for (int i = 0; i < N; i++)
            c[i] += 5;
#pragma omp target update from(c)
    }
    for (int i = 0; i < N; i++)
        CHECK_EQ(c[i], i + 5, "c[%d] after target data / update", i);

    /* enter / exit data. */
    static double d[64];
    for (int i = 0; i < 64; i++)
        d[i] = i;
#pragma omp target enter data map(to : d)
#pragma omp target
    for (int i = 0; i < 64; i++)
        d[i] *= 2;
#pragma omp target exit data map(from : d)
    for (int i = 0; i < 64; i++)
        CHECK(d[i] == 2.0 * i, "d[%d] = %g after enter/exit data", i, d[i]);

    /* nowait target tasks. */
    int e = 0, g = 0;
#pragma omp target nowait map(tofrom : e)
    e = 7;
#pragma omp target nowait map(tofrom : g)
    g = 9;
#pragma omp taskwait
    CHECK(e == 7 && g == 9, "nowait targets: e=%d g=%d", e, g);

    /* Host teams. */
    int team_runs[8] = {0};
    int nteams = 0, bad = 0;
#pragma omp teams num_teams(3) reduction(+ : bad)
    {
        int t = omp_get_team_num();
        int n = omp_get_num_teams();
        bad += t < 0 || t >= n || n > 3;
        if (t == 0)
            nteams = n;
        if (t >= 0 && t < 8)
            team_runs[t]++; /* each team its own slot (no atomics directly in teams) */
    }
    CHECK_EQ(bad, 0, "host teams with a bad team number or count");
    CHECK(nteams >= 1 && nteams <= 3, "omp_get_num_teams() = %d for num_teams(3)", nteams);
    for (int t = 0; t < 8; t++)
        CHECK_EQ(team_runs[t], t < nteams, "runs of host team %d", t);
    long tsum = 0;
    /* (Not `teams distribute parallel for` on the host: gcc 12's libgomp
     * deadlocks now and then on a parallel region inside host teams.) */
#pragma omp teams distribute num_teams(2) reduction(+ : tsum)
    for (int i = 0; i < N; i++)
        tsum += a[i];
    CHECK_EQ(tsum, (long)N * (N - 1) / 2, "host teams distribute reduction");
    /* The device queries on a host-only runtime (the programs build with
     * -foffload=disable; libgomp without offload plugins, libomp without
     * libomptarget, libmuster-omp): no devices, so the host is device 0,
     * and the default device, OMP_DEFAULT_DEVICE's 0 (the runs clear
     * OMP_*), is the host. */
    int ndev = omp_get_num_devices();
    CHECK_EQ(ndev, 0, "omp_get_num_devices() on the host-only runtime");
    CHECK_EQ(omp_get_initial_device(), ndev, "omp_get_initial_device() (the host: omp_get_num_devices())");
    CHECK_EQ(omp_get_device_num(), ndev, "omp_get_device_num() outside a target region (the host)");
    CHECK_EQ(omp_is_initial_device(), 1, "omp_is_initial_device() outside a target region");
    CHECK_EQ(omp_get_default_device(), ndev, "omp_get_default_device() with OMP_DEFAULT_DEVICE unset");
    CHECK_EQ(omp_get_max_task_priority(), 0, "omp_get_max_task_priority() with OMP_MAX_TASK_PRIORITY unset");
    corpus_summary("sum=%ld ok", sum);
    return 0;
}
