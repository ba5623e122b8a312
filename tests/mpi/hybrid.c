/* hybrid: an MPI + OpenMP program of the usual shape (issue #31): a 1-D
 * heat equation split into one slab per rank, each sweep a halo exchange
 * with the neighbours (MPI_Sendrecv), an OpenMP loop over the slab with a
 * max-reduction of the change, and an MPI_Allreduce of it.  Prints the
 * sweeps, the final change and a checksum, which do not depend on the
 * number of ranks or threads or on the runtime, then the time.
 *
 *   mpirun -np R [--bind-to core|none] env OMP_NUM_THREADS=T hybrid [--points N] [--sweeps N]
 *
 * Built by gcc -fopenmp with mpicc; run on libmuster-omp with LD_PRELOAD
 * (mpirun -x LD_PRELOAD=...). */
#include <math.h>
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long option(int argc, char **argv, const char *name, long fallback)
{
    for (int i = 1; i + 1 < argc; i++)
        if (strcmp(argv[i], name) == 0) {
            char *end;
            long v = strtol(argv[i + 1], &end, 10);
            if (*end == '\0' && v > 0)
                return v;
            fprintf(stderr, "hybrid: %s '%s': a whole number above 0; using %ld\n", name, argv[i + 1], fallback);
        }
    return fallback;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    int rank, ranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    long points = option(argc, argv, "--points", 40000), sweeps = option(argc, argv, "--sweeps", 2000);
    /* This rank's slab [first, first + n) of the points, with a ghost cell each side. */
    long first = points * rank / ranks, n = points * (rank + 1) / ranks - first;
    double *u = calloc((size_t)n + 2, sizeof *u), *v = calloc((size_t)n + 2, sizeof *v);
    if (u == NULL || v == NULL) {
        fprintf(stderr, "hybrid: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (long i = 1; i <= n; i++) /* a bump in the middle, zero at both ends */
        u[i] = sin(M_PI * (double)(first + i - 1) / (double)(points - 1));
    double start = MPI_Wtime(), change = 0.0;
    int left = rank > 0 ? rank - 1 : MPI_PROC_NULL, right = rank + 1 < ranks ? rank + 1 : MPI_PROC_NULL;
    long sweep;
    for (sweep = 0; sweep < sweeps; sweep++) {
        MPI_Sendrecv(&u[1], 1, MPI_DOUBLE, left, 0, &u[n + 1], 1, MPI_DOUBLE, right, 0, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        MPI_Sendrecv(&u[n], 1, MPI_DOUBLE, right, 1, &u[0], 1, MPI_DOUBLE, left, 1, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        double local = 0.0;
#pragma omp parallel for reduction(max : local) schedule(static)
        for (long i = 1; i <= n; i++) {
            long global = first + i - 1;
            v[i] = global == 0 || global == points - 1 ? u[i] : 0.5 * u[i] + 0.25 * (u[i - 1] + u[i + 1]);
            double d = fabs(v[i] - u[i]);
            local = d > local ? d : local;
        }
        double *t = u;
        u = v;
        v = t;
        MPI_Allreduce(&local, &change, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    }
    /* The checksum in point order, whatever the split: summed on rank 0
     * slab by slab. */
    double mine = 0.0, checksum = 0.0;
    for (long i = 1; i <= n; i++)
        mine += u[i] * (double)(first + i);
    double *all = rank == 0 ? malloc((size_t)ranks * sizeof *all) : NULL;
    MPI_Gather(&mine, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    double took = MPI_Wtime() - start;
    if (rank == 0) {
        for (int r = 0; r < ranks; r++)
            checksum += all[r];
        printf("sweeps = %ld\nchange = %.9e\nchecksum = %.9e\n", sweep, change, checksum);
        printf("ranks = %d, threads = %d, time = %.6f s\n", ranks, omp_get_max_threads(), took);
    }
    free(all);
    free(u);
    free(v);
    MPI_Finalize();
    return 0;
}
