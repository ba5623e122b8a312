/* The Fortran names of the omp_* routines that take and return numbers:
 * each reads its arguments through their references (8-byte ones clamped
 * in the _8_ forms) and calls the C routine.  Locks: lock.c; character
 * arguments: text.c. */
#include <omp.h> /* gcc's: the C routines called here */
#include <stdlib.h>

#include "omp/fortran/fortran.h"

/* int32_t NAME_(void), returning the C routine's int. */
#define INTEGER_QUERY(name)                  \
    FORTRAN_ENTRY int32_t name##_(void);     \
    FORTRAN_ENTRY int32_t name##_(void)      \
    {                                        \
        return name();                       \
    }

/* LOGICAL NAME_(void). */
#define LOGICAL_QUERY(name)                  \
    FORTRAN_ENTRY int32_t name##_(void);     \
    FORTRAN_ENTRY int32_t name##_(void)      \
    {                                        \
        return fortran_logical(name());      \
    }

/* NAME_(const int32_t *) and NAME_8_(const int64_t *) around void NAME(int). */
#define INTEGER_SETTER(name)                                \
    FORTRAN_ENTRY void name##_(const int32_t *value);       \
    FORTRAN_ENTRY void name##_8_(const int64_t *value);     \
    FORTRAN_ENTRY void name##_(const int32_t *value)        \
    {                                                       \
        name(*value);                                       \
    }                                                       \
    FORTRAN_ENTRY void name##_8_(const int64_t *value)      \
    {                                                       \
        name(fortran_int8(*value));                         \
    }

/* The same for a LOGICAL argument (any non-zero value is true). */
#define LOGICAL_SETTER(name)                                \
    FORTRAN_ENTRY void name##_(const int32_t *value);       \
    FORTRAN_ENTRY void name##_8_(const int64_t *value);     \
    FORTRAN_ENTRY void name##_(const int32_t *value)        \
    {                                                       \
        name(*value != 0);                                  \
    }                                                       \
    FORTRAN_ENTRY void name##_8_(const int64_t *value)      \
    {                                                       \
        name(*value != 0);                                  \
    }

/* int32_t NAME_(const int32_t *) and NAME_8_(const int64_t *) around int NAME(int). */
#define INTEGER_OF_INTEGER(name)                            \
    FORTRAN_ENTRY int32_t name##_(const int32_t *arg);      \
    FORTRAN_ENTRY int32_t name##_8_(const int64_t *arg);    \
    FORTRAN_ENTRY int32_t name##_(const int32_t *arg)       \
    {                                                       \
        return name(*arg);                                  \
    }                                                       \
    FORTRAN_ENTRY int32_t name##_8_(const int64_t *arg)     \
    {                                                       \
        return name(fortran_int8(*arg));                    \
    }

/* ---- OpenMP 1.0 and 2.0 ---- */
INTEGER_SETTER(omp_set_num_threads)
INTEGER_QUERY(omp_get_num_threads)
INTEGER_QUERY(omp_get_max_threads)
INTEGER_QUERY(omp_get_thread_num)
INTEGER_QUERY(omp_get_num_procs)
LOGICAL_QUERY(omp_in_parallel)
LOGICAL_SETTER(omp_set_dynamic)
LOGICAL_QUERY(omp_get_dynamic)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations" /* still in omp_lib: programs call them */
LOGICAL_SETTER(omp_set_nested)
LOGICAL_QUERY(omp_get_nested)
#pragma GCC diagnostic pop

FORTRAN_ENTRY double omp_get_wtime_(void);
FORTRAN_ENTRY double omp_get_wtime_(void)
{
    return omp_get_wtime();
}

FORTRAN_ENTRY double omp_get_wtick_(void);
FORTRAN_ENTRY double omp_get_wtick_(void)
{
    return omp_get_wtick();
}

/* ---- OpenMP 3.0 and 3.1 ---- */

FORTRAN_ENTRY void omp_set_schedule_(const int32_t *kind, const int32_t *chunk);
FORTRAN_ENTRY void omp_set_schedule_8_(const int32_t *kind, const int64_t *chunk);
FORTRAN_ENTRY void omp_set_schedule_(const int32_t *kind, const int32_t *chunk)
{
    omp_set_schedule((omp_sched_t)*kind, *chunk);
}

FORTRAN_ENTRY void omp_set_schedule_8_(const int32_t *kind, const int64_t *chunk)
{
    omp_set_schedule((omp_sched_t)*kind, fortran_int8(*chunk));
}

/* The kind without omp_sched_monotonic: omp_lib's omp_sched_kind values
 * are the four plain kinds (libgomp masks it too). */
static int32_t plain_schedule(int *chunk)
{
    omp_sched_t kind;
    omp_get_schedule(&kind, chunk);
    return (int32_t)((unsigned)kind & ~(unsigned)omp_sched_monotonic);
}

FORTRAN_ENTRY void omp_get_schedule_(int32_t *kind, int32_t *chunk);
FORTRAN_ENTRY void omp_get_schedule_8_(int32_t *kind, int64_t *chunk);
FORTRAN_ENTRY void omp_get_schedule_(int32_t *kind, int32_t *chunk)
{
    int c;
    *kind = plain_schedule(&c);
    *chunk = c;
}

FORTRAN_ENTRY void omp_get_schedule_8_(int32_t *kind, int64_t *chunk)
{
    int c;
    *kind = plain_schedule(&c);
    *chunk = c;
}

INTEGER_QUERY(omp_get_thread_limit)
INTEGER_SETTER(omp_set_max_active_levels)
INTEGER_QUERY(omp_get_max_active_levels)
INTEGER_QUERY(omp_get_level)
INTEGER_OF_INTEGER(omp_get_ancestor_thread_num)
INTEGER_OF_INTEGER(omp_get_team_size)
INTEGER_QUERY(omp_get_active_level)
LOGICAL_QUERY(omp_in_final)

/* ---- OpenMP 4.0 and 4.5 ---- */
LOGICAL_QUERY(omp_get_cancellation)
INTEGER_QUERY(omp_get_proc_bind)
INTEGER_SETTER(omp_set_default_device)
INTEGER_QUERY(omp_get_default_device)
INTEGER_QUERY(omp_get_num_devices)
INTEGER_QUERY(omp_get_num_teams)
INTEGER_QUERY(omp_get_team_num)
LOGICAL_QUERY(omp_is_initial_device)
INTEGER_QUERY(omp_get_initial_device)
INTEGER_QUERY(omp_get_max_task_priority)
INTEGER_QUERY(omp_get_num_places)
INTEGER_OF_INTEGER(omp_get_place_num_procs)
INTEGER_QUERY(omp_get_place_num)
INTEGER_QUERY(omp_get_partition_num_places)

/* The place-list routines fill a Fortran array.  The _8_ forms widen the C
 * routine's ints, which go to a scratch array of the size its count
 * routine gives (nothing written when it cannot be had). */
static void widen(const int *from, int64_t *to, int count)
{
    for (int i = 0; i < count; i++)
        to[i] = from[i];
}

FORTRAN_ENTRY void omp_get_place_proc_ids_(const int32_t *place, int32_t *ids);
FORTRAN_ENTRY void omp_get_place_proc_ids_8_(const int64_t *place, int64_t *ids);
FORTRAN_ENTRY void omp_get_place_proc_ids_(const int32_t *place, int32_t *ids)
{
    omp_get_place_proc_ids(*place, (int *)ids);
}

FORTRAN_ENTRY void omp_get_place_proc_ids_8_(const int64_t *place, int64_t *ids)
{
    int p = fortran_int8(*place);
    int count = omp_get_place_num_procs(p);
    int *scratch = count > 0 ? malloc((size_t)count * sizeof *scratch) : NULL;
    if (scratch == NULL)
        return;
    omp_get_place_proc_ids(p, scratch);
    widen(scratch, ids, count);
    free(scratch);
}

FORTRAN_ENTRY void omp_get_partition_place_nums_(int32_t *places);
FORTRAN_ENTRY void omp_get_partition_place_nums_8_(int64_t *places);
FORTRAN_ENTRY void omp_get_partition_place_nums_(int32_t *places)
{
    omp_get_partition_place_nums((int *)places);
}

FORTRAN_ENTRY void omp_get_partition_place_nums_8_(int64_t *places)
{
    int count = omp_get_partition_num_places();
    int *scratch = count > 0 ? malloc((size_t)count * sizeof *scratch) : NULL;
    if (scratch == NULL)
        return;
    omp_get_partition_place_nums(scratch);
    widen(scratch, places, count);
    free(scratch);
}

/* ---- OpenMP 5.0 and 5.1 ---- */

FORTRAN_ENTRY int32_t omp_pause_resource_(const int32_t *kind, const int32_t *device);
FORTRAN_ENTRY int32_t omp_pause_resource_(const int32_t *kind, const int32_t *device)
{
    return omp_pause_resource((omp_pause_resource_t)*kind, *device);
}

FORTRAN_ENTRY int32_t omp_pause_resource_all_(const int32_t *kind);
FORTRAN_ENTRY int32_t omp_pause_resource_all_(const int32_t *kind)
{
    return omp_pause_resource_all((omp_pause_resource_t)*kind);
}

INTEGER_QUERY(omp_get_supported_active_levels)
INTEGER_QUERY(omp_get_device_num)
INTEGER_SETTER(omp_set_num_teams)
INTEGER_QUERY(omp_get_max_teams)
INTEGER_SETTER(omp_set_teams_thread_limit)
INTEGER_QUERY(omp_get_teams_thread_limit)
LOGICAL_SETTER(omp_display_env)

/* omp_lib's omp_alloctrait is the C omp_alloctrait_t: an integer(4) key
 * and an integer(intptr) value, in that order. */
FORTRAN_ENTRY intptr_t omp_init_allocator_(const intptr_t *memspace, const int32_t *ntraits,
                                           const omp_alloctrait_t *traits);
FORTRAN_ENTRY intptr_t omp_init_allocator_8_(const intptr_t *memspace, const int64_t *ntraits,
                                             const omp_alloctrait_t *traits);
FORTRAN_ENTRY intptr_t omp_init_allocator_(const intptr_t *memspace, const int32_t *ntraits,
                                           const omp_alloctrait_t *traits)
{
    return (intptr_t)omp_init_allocator((omp_memspace_handle_t)*memspace, *ntraits, traits);
}

FORTRAN_ENTRY intptr_t omp_init_allocator_8_(const intptr_t *memspace, const int64_t *ntraits,
                                             const omp_alloctrait_t *traits)
{
    return (intptr_t)omp_init_allocator((omp_memspace_handle_t)*memspace, fortran_int8(*ntraits), traits);
}

FORTRAN_ENTRY void omp_destroy_allocator_(const intptr_t *allocator);
FORTRAN_ENTRY void omp_destroy_allocator_(const intptr_t *allocator)
{
    omp_destroy_allocator((omp_allocator_handle_t)*allocator);
}

FORTRAN_ENTRY void omp_set_default_allocator_(const intptr_t *allocator);
FORTRAN_ENTRY void omp_set_default_allocator_(const intptr_t *allocator)
{
    omp_set_default_allocator((omp_allocator_handle_t)*allocator);
}

FORTRAN_ENTRY intptr_t omp_get_default_allocator_(void);
FORTRAN_ENTRY intptr_t omp_get_default_allocator_(void)
{
    return (intptr_t)omp_get_default_allocator();
}

/* omp_lib passes the event handle by value (gfortran's interface says
 * `value`): the detach clause's handle, as the C routine takes it. */
FORTRAN_ENTRY void omp_fulfill_event_(intptr_t event);
FORTRAN_ENTRY void omp_fulfill_event_(intptr_t event)
{
    omp_fulfill_event((omp_event_handle_t)event);
}
