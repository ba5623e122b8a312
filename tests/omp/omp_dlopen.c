/* Two OpenMP libraries in one process, loaded with dlopen (issue #31): one
 * built by gcc (GOMP_* calls, NEEDED libgomp.so.1), one by clang (__kmpc_*
 * calls, NEEDED libomp.so.5): omp_dlopen_gcc.c and omp_dlopen_clang.c.
 * This program, built by gcc, opens both and has each run parallel regions
 * that note which threads ran them, take one lock the gcc half made, and
 * fork a region nested in the other half's.  On libmuster-omp (the shim
 * makes both NEEDED names resolve to it) the two halves share one runtime:
 * one pool of threads (no more distinct threads than the team size, over
 * every region of both), one lock that excludes both, and nesting that
 * sees the outer half's level.  Run on muster only: on the libraries they
 * were built for, the halves would run two pools (libgomp's and libomp's).
 *
 * usage: omp_dlopen [GCC_PART.so CLANG_PART.so]
 * (default: libomp_dlopen_gcc.so and libomp_dlopen_clang.so beside the
 * program, where the build puts them) */
#include <dlfcn.h>
#include <sys/syscall.h>

#include "corpus.h"

typedef int (*region_fn)(int threads, int *tids, int max_tids, omp_lock_t *lock, long *locked, int nested_threads,
                         int *inner_level);

static void *open_part(const char *path)
{
    void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    CHECK(handle != NULL, "dlopen %s: %s", path, dlerror());
    return handle;
}

/* Adds the ids in tids[0..n) to seen[0..*count) when new. */
static void note_tids(int *seen, int *count, int max, const int *tids, int n)
{
    for (int i = 0; i < n; i++) {
        int known = 0;
        for (int k = 0; k < *count; k++)
            known |= seen[k] == tids[i];
        if (!known && *count < max)
            seen[(*count)++] = tids[i];
    }
}

/* dir/name, dir being the program's own directory. */
static void beside_me(char *out, size_t size, const char *name)
{
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    CHECK(n > 0, "cannot read /proc/self/exe");
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    *slash = '\0';
    snprintf(out, size, "%s/%s", self, name);
}

int main(int argc, char **argv)
{
    corpus_begin("omp_dlopen");
    CHECK(argc == 1 || argc == 3, "usage: omp_dlopen [GCC_PART.so CLANG_PART.so]");
    char gcc_path[4200], clang_path[4200];
    if (argc == 3) {
        snprintf(gcc_path, sizeof gcc_path, "%s", argv[1]);
        snprintf(clang_path, sizeof clang_path, "%s", argv[2]);
    } else {
        beside_me(gcc_path, sizeof gcc_path, "libomp_dlopen_gcc.so");
        beside_me(clang_path, sizeof clang_path, "libomp_dlopen_clang.so");
    }
    int T = corpus_threads();
    void *gcc_part = open_part(gcc_path), *clang_part = open_part(clang_path);
    region_fn gcc_region = (region_fn)dlsym(gcc_part, "gcc_part_region");
    region_fn clang_region = (region_fn)dlsym(clang_part, "clang_part_region");
    void (*gcc_init_lock)(omp_lock_t *) = (void (*)(omp_lock_t *))dlsym(gcc_part, "gcc_part_init_lock");
    void (*gcc_set_other)(region_fn) = (void (*)(region_fn))dlsym(gcc_part, "gcc_part_set_other");
    void (*clang_set_other)(region_fn) = (void (*)(region_fn))dlsym(clang_part, "clang_part_set_other");
    CHECK(gcc_region && clang_region && gcc_init_lock && gcc_set_other && clang_set_other,
          "the parts' functions: %s", dlerror());
    gcc_set_other(clang_region);
    clang_set_other(gcc_region);

    /* Room for either compiler's omp_lock_t (clang's is a pointer). */
    union {
        omp_lock_t lock;
        void *room[4];
    } lock;
    gcc_init_lock(&lock.lock);
    int seen[1024], distinct = 0, tids[256];
    long locked = 0;
    for (int round = 0; round < 30; round++) {
        int inner = -1;
        int n = gcc_region(T, tids, 256, &lock.lock, &locked, round % 3 == 0 ? 2 : 0, &inner);
        CHECK_EQ(n, T, "round %d: the gcc half's team", round);
        note_tids(seen, &distinct, 1024, tids, n);
        if (round % 3 == 0)
            CHECK_EQ(inner, 2, "round %d: a clang region nested in gcc's sees level 2", round);
        n = clang_region(T, tids, 256, &lock.lock, &locked, round % 3 == 1 ? 2 : 0, &inner);
        CHECK_EQ(n, T, "round %d: the clang half's team", round);
        note_tids(seen, &distinct, 1024, tids, n);
        if (round % 3 == 1)
            CHECK_EQ(inner, 2, "round %d: a gcc region nested in clang's sees level 2", round);
    }
    CHECK_EQ(locked, 30L * 2 * T * 50, "increments under the one lock, from both halves");
    /* One pool: every region of both halves ran on the same T threads (the
     * nested regions' threads are not counted: they are noted apart). */
    CHECK(distinct <= T, "%d distinct threads ran the two halves' top-level regions of %d: two pools", distinct, T);
    corpus_summary("rounds=30 ok");
    return 0;
}
