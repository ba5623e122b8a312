/* The omp_* functions under their second name, NAME@VERSION, which every
 * clang-built binary asks for (LLVM's libomp.so.5 exports its API at
 * version VERSION, as well as at gcc's OMP_x nodes).  Each is a forwarder
 * with an address of its own: GNU ld 2.40 keeps only one of two versions
 * of a name that share an address, so the alias-and-.symver trick libomp
 * uses would lose the OMP_x name gcc binaries need.  The nest locks differ
 * in size between the two omp.h files and are in lock.c; omp_target_* live
 * in LLVM's libomptarget, not libomp, and have no second name;
 * omp_fulfill_event, whose handle differs, is in task.c.  Also the
 * four ompc_* names LLVM's omp.h maps the affinity functions to. */
#include <omp.h>
#include <stddef.h>

#include "omp/kmp/kmp.h"

/* omp_get_nested and omp_set_nested: deprecated in OpenMP 5, still exported. */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
int omp_get_nested(void);
void omp_set_nested(int);

#define KMP_NAME(ret, name, params, args) \
    __attribute__((symver(#name "@VERSION"))) MUSTER_OMP_EXPORT ret muster_kmp_##name params { return name args; }
#define KMP_VOID_NAME(name, params, args) \
    __attribute__((symver(#name "@VERSION"))) MUSTER_OMP_EXPORT void muster_kmp_##name params { name args; }

KMP_NAME(void *, omp_aligned_alloc, (size_t a0, size_t a1, omp_allocator_handle_t a2), (a0, a1, a2))
KMP_NAME(void *, omp_aligned_calloc, (size_t a0, size_t a1, size_t a2, omp_allocator_handle_t a3), (a0, a1, a2, a3))
KMP_NAME(void *, omp_alloc, (size_t a0, omp_allocator_handle_t a1), (a0, a1))
KMP_NAME(void *, omp_calloc, (size_t a0, size_t a1, omp_allocator_handle_t a2), (a0, a1, a2))
KMP_NAME(size_t, omp_capture_affinity, (char *a0, size_t a1, const char *a2), (a0, a1, a2))
KMP_VOID_NAME(omp_destroy_allocator, (omp_allocator_handle_t a0), (a0))
KMP_VOID_NAME(omp_destroy_lock, (omp_lock_t *a0), (a0))
KMP_VOID_NAME(omp_display_affinity, (const char *a0), (a0))
KMP_VOID_NAME(omp_display_env, (int a0), (a0))
KMP_VOID_NAME(omp_free, (void *a0, omp_allocator_handle_t a1), (a0, a1))
KMP_NAME(int, omp_get_active_level, (void), ())
KMP_NAME(size_t, omp_get_affinity_format, (char *a0, size_t a1), (a0, a1))
KMP_NAME(int, omp_get_ancestor_thread_num, (int a0), (a0))
KMP_NAME(int, omp_get_cancellation, (void), ())
KMP_NAME(omp_allocator_handle_t, omp_get_default_allocator, (void), ())
KMP_NAME(int, omp_get_default_device, (void), ())
KMP_NAME(int, omp_get_device_num, (void), ())
KMP_NAME(int, omp_get_dynamic, (void), ())
KMP_NAME(int, omp_get_initial_device, (void), ())
KMP_NAME(int, omp_get_level, (void), ())
KMP_NAME(int, omp_get_max_active_levels, (void), ())
KMP_NAME(int, omp_get_max_task_priority, (void), ())
KMP_NAME(int, omp_get_max_teams, (void), ())
KMP_NAME(int, omp_get_max_threads, (void), ())
KMP_NAME(int, omp_get_nested, (void), ())
KMP_NAME(int, omp_get_num_devices, (void), ())
KMP_NAME(int, omp_get_num_places, (void), ())
KMP_NAME(int, omp_get_num_procs, (void), ())
KMP_NAME(int, omp_get_num_teams, (void), ())
KMP_NAME(int, omp_get_num_threads, (void), ())
KMP_NAME(int, omp_get_partition_num_places, (void), ())
KMP_VOID_NAME(omp_get_partition_place_nums, (int *a0), (a0))
KMP_NAME(int, omp_get_place_num, (void), ())
KMP_NAME(int, omp_get_place_num_procs, (int a0), (a0))
KMP_VOID_NAME(omp_get_place_proc_ids, (int a0, int *a1), (a0, a1))
KMP_NAME(omp_proc_bind_t, omp_get_proc_bind, (void), ())
KMP_VOID_NAME(omp_get_schedule, (omp_sched_t *a0, int *a1), (a0, a1))
KMP_NAME(int, omp_get_supported_active_levels, (void), ())
KMP_NAME(int, omp_get_team_num, (void), ())
KMP_NAME(int, omp_get_team_size, (int a0), (a0))
KMP_NAME(int, omp_get_teams_thread_limit, (void), ())
KMP_NAME(int, omp_get_thread_limit, (void), ())
KMP_NAME(int, omp_get_thread_num, (void), ())
KMP_NAME(double, omp_get_wtick, (void), ())
KMP_NAME(double, omp_get_wtime, (void), ())
KMP_NAME(int, omp_in_final, (void), ())
KMP_NAME(int, omp_in_parallel, (void), ())
KMP_NAME(omp_allocator_handle_t, omp_init_allocator, (omp_memspace_handle_t a0, int a1, const omp_alloctrait_t a2[]), (a0, a1, a2))
KMP_VOID_NAME(omp_init_lock, (omp_lock_t *a0), (a0))
KMP_VOID_NAME(omp_init_lock_with_hint, (omp_lock_t *a0, omp_sync_hint_t a1), (a0, a1))
KMP_NAME(int, omp_is_initial_device, (void), ())
KMP_NAME(int, omp_pause_resource, (omp_pause_resource_t a0, int a1), (a0, a1))
KMP_NAME(int, omp_pause_resource_all, (omp_pause_resource_t a0), (a0))
KMP_NAME(void *, omp_realloc, (void *a0, size_t a1, omp_allocator_handle_t a2, omp_allocator_handle_t a3), (a0, a1, a2, a3))
KMP_VOID_NAME(omp_set_affinity_format, (const char *a0), (a0))
KMP_VOID_NAME(omp_set_default_allocator, (omp_allocator_handle_t a0), (a0))
KMP_VOID_NAME(omp_set_default_device, (int a0), (a0))
KMP_VOID_NAME(omp_set_dynamic, (int a0), (a0))
KMP_VOID_NAME(omp_set_lock, (omp_lock_t *a0), (a0))
KMP_VOID_NAME(omp_set_max_active_levels, (int a0), (a0))
KMP_VOID_NAME(omp_set_nested, (int a0), (a0))
KMP_VOID_NAME(omp_set_num_teams, (int a0), (a0))
KMP_VOID_NAME(omp_set_num_threads, (int a0), (a0))
KMP_VOID_NAME(omp_set_schedule, (omp_sched_t a0, int a1), (a0, a1))
KMP_VOID_NAME(omp_set_teams_thread_limit, (int a0), (a0))
KMP_NAME(int, omp_test_lock, (omp_lock_t *a0), (a0))
KMP_VOID_NAME(omp_unset_lock, (omp_lock_t *a0), (a0))

/* ---- ompc_*: LLVM's omp.h #defines the affinity functions to these ---- */

MUSTER_OMP_EXPORT void ompc_set_affinity_format(const char *format)
{
    omp_set_affinity_format(format);
}

MUSTER_OMP_EXPORT size_t ompc_get_affinity_format(char *buffer, size_t size)
{
    return omp_get_affinity_format(buffer, size);
}

MUSTER_OMP_EXPORT void ompc_display_affinity(const char *format)
{
    omp_display_affinity(format);
}

MUSTER_OMP_EXPORT size_t ompc_capture_affinity(char *buffer, size_t size, const char *format)
{
    return omp_capture_affinity(buffer, size, format);
}
