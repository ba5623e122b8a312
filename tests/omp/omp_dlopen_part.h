/* What both parts of omp_dlopen define (omp_dlopen.c says why), once for
 * each compiler: PART_NAME(region), PART_NAME(init_lock) and
 * PART_NAME(set_other), which gives it the other part's region. */
#include <omp.h>
#include <sys/syscall.h>
#include <unistd.h>

typedef int (*other_region_fn)(int threads, int *tids, int max_tids, omp_lock_t *lock, long *locked,
                               int nested_threads, int *inner_level);

static other_region_fn other_region;

void PART_NAME(set_other)(other_region_fn other)
{
    other_region = other;
}

void PART_NAME(init_lock)(omp_lock_t *lock)
{
    omp_init_lock(lock);
}

/* A region of `threads`: each member notes its kernel thread id, takes the
 * lock 50 times; with nested_threads > 0, member 0 runs the other part's
 * region inside, which reports its omp_get_level() in *inner_level.
 * Returns the team size. */
int PART_NAME(region)(int threads, int *tids, int max_tids, omp_lock_t *lock, long *locked, int nested_threads,
                      int *inner_level)
{
    int size = 0;
    if (lock == NULL) { /* called nested by the other part: just the level */
#pragma omp parallel num_threads(threads)
        {
#pragma omp master
            *inner_level = omp_get_level();
        }
        return threads;
    }
#pragma omp parallel num_threads(threads)
    {
        int id = omp_get_thread_num();
        if (id < max_tids)
            tids[id] = (int)syscall(SYS_gettid);
#pragma omp master
        size = omp_get_num_threads();
        for (int i = 0; i < 50; i++) {
            omp_set_lock(lock);
            long v = *locked; /* plain: the lock orders it */
            *locked = v + 1;
            omp_unset_lock(lock);
        }
        if (nested_threads > 0 && id == 0 && other_region != NULL) {
            omp_set_max_active_levels(2);
            other_region(nested_threads, NULL, 0, NULL, NULL, 0, inner_level);
            omp_set_max_active_levels(1);
        }
    }
    return size;
}
