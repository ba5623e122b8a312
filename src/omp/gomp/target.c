/* gcc's offload and teams entry points (GOMP_target*, GOMP_teams*,
 * GOMP_offload_*), its `error` directive and `allocate` entry points, onto
 * the core's host teams, host target regions and allocators (target.c).
 * There is no device: target regions run on the host, and mapping data is
 * the identity, so the data constructs do nothing. */
#include <limits.h>
#include <omp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "omp/internal.h"

/* gomp-constants.h */
#define MAP_FIRSTPRIVATE 12
#define TARGET_ARG_DEVICE_MASK ((1 << 7) - 1)
#define TARGET_ARG_DEVICE_ALL 0
#define TARGET_ARG_SUBSEQUENT_PARAM (1 << 7)
#define TARGET_ARG_ID_MASK (((1 << 8) - 1) << 8)
#define TARGET_ARG_THREAD_LIMIT (2 << 8)
#define TARGET_ARG_VALUE_SHIFT 16

/* ---- teams ---- */

/* GOMP 4.0 `teams` inside a target region: one team on the host. */
MUSTER_OMP_EXPORT void GOMP_teams(unsigned num_teams, unsigned thread_limit)
{
    (void)num_teams;
    muster_omp_teams_limit_threads(thread_limit);
}

/* `teams` inside a target region (gcc 12): the emitted code loops while this
 * returns true, first with first == true; each pass is one team.  The
 * lower bound of num_teams is how many teams run. */
MUSTER_OMP_EXPORT bool GOMP_teams4(unsigned num_teams_low, unsigned num_teams_high, unsigned thread_limit,
                                   bool first)
{
    (void)num_teams_high;
    if (first)
        muster_omp_teams_limit_threads(thread_limit);
    return muster_omp_host_teams_step(first, num_teams_low);
}

/* A host `teams` construct: the teams run one after another on this thread. */
MUSTER_OMP_EXPORT void GOMP_teams_reg(void (*fn)(void *), void *data, unsigned num_teams, unsigned thread_limit,
                                      unsigned flags)
{
    (void)flags;
    muster_omp_host_teams(fn, data, num_teams, thread_limit);
}

/* ---- target regions ---- */

/* The thread_limit among GOMP_target_ext's args (for all devices); 0: none. */
static unsigned thread_limit_arg(void **args)
{
    for (; args != NULL && *args != NULL; args++) {
        intptr_t id = (intptr_t)*args, value;
        if (id & TARGET_ARG_SUBSEQUENT_PARAM)
            value = (intptr_t)*++args;
        else
            value = id >> TARGET_ARG_VALUE_SHIFT;
        if ((id & TARGET_ARG_DEVICE_MASK) != TARGET_ARG_DEVICE_ALL ||
            (id & TARGET_ARG_ID_MASK) != TARGET_ARG_THREAD_LIMIT)
            continue;
        return value > 0 ? (value > INT_MAX ? INT_MAX : (unsigned)value) : 0;
    }
    return 0;
}

/* Bytes the firstprivate copies take, with their alignments (kind >> 8). */
static size_t firstprivate_bytes(size_t mapnum, const size_t *sizes, const unsigned short *kinds, size_t *max_align)
{
    size_t bytes = 0;
    *max_align = 1;
    for (size_t i = 0; i < mapnum; i++) {
        if ((kinds[i] & 0xff) != MAP_FIRSTPRIVATE)
            continue;
        size_t align = (size_t)1 << (kinds[i] >> 8);
        if (align > *max_align)
            *max_align = align;
        bytes = (bytes + align - 1) & ~(align - 1);
        bytes += sizes[i];
    }
    return bytes;
}

/* firstprivate variables get their own copy for the region, as on a device. */
static void copy_firstprivates(char *block, size_t mapnum, void **hostaddrs, const size_t *sizes,
                               const unsigned short *kinds)
{
    size_t offset = 0;
    for (size_t i = 0; i < mapnum; i++) {
        if ((kinds[i] & 0xff) != MAP_FIRSTPRIVATE)
            continue;
        size_t align = (size_t)1 << (kinds[i] >> 8);
        offset = (offset + align - 1) & ~(align - 1);
        memcpy(block + offset, hostaddrs[i], sizes[i]);
        hostaddrs[i] = block + offset;
        offset += sizes[i];
    }
}

/* GOMP 4.0: no firstprivate kinds in this form. */
MUSTER_OMP_EXPORT void GOMP_target(int device, void (*fn)(void *), const void *unused, size_t mapnum,
                                   void **hostaddrs, size_t *sizes, unsigned char *kinds)
{
    (void)device;
    (void)unused;
    (void)mapnum;
    (void)sizes;
    (void)kinds;
    muster_omp_target_run_on_host(fn, hostaddrs, 0);
}

/* nowait and depend: the region runs at once, like an undeferred task. */
MUSTER_OMP_EXPORT void GOMP_target_ext(int device, void (*fn)(void *), size_t mapnum, void **hostaddrs,
                                       size_t *sizes, unsigned short *kinds, unsigned flags, void **depend,
                                       void **args)
{
    (void)device;
    (void)flags;
    (void)depend;
    size_t align;
    size_t bytes = firstprivate_bytes(mapnum, sizes, kinds, &align);
    char *block = NULL;
    if (bytes != 0) {
        block = malloc(bytes + align - 1);
        if (block == NULL) {
            muster_omp_fatal("out of memory for a target region's firstprivate data");
        }
        char *aligned = (char *)(((uintptr_t)block + align - 1) & ~(uintptr_t)(align - 1));
        copy_firstprivates(aligned, mapnum, hostaddrs, sizes, kinds);
    }
    muster_omp_target_run_on_host(fn, hostaddrs, thread_limit_arg(args));
    free(block);
}

/* Mapping on the host is the identity: nothing to allocate, copy or free. */
MUSTER_OMP_EXPORT void GOMP_target_data(int device, const void *unused, size_t mapnum, void **hostaddrs,
                                        size_t *sizes, unsigned char *kinds)
{
    (void)device, (void)unused, (void)mapnum, (void)hostaddrs, (void)sizes, (void)kinds;
}

MUSTER_OMP_EXPORT void GOMP_target_data_ext(int device, size_t mapnum, void **hostaddrs, size_t *sizes,
                                            unsigned short *kinds)
{
    (void)device, (void)mapnum, (void)hostaddrs, (void)sizes, (void)kinds;
}

MUSTER_OMP_EXPORT void GOMP_target_end_data(void)
{
}

MUSTER_OMP_EXPORT void GOMP_target_update(int device, const void *unused, size_t mapnum, void **hostaddrs,
                                          size_t *sizes, unsigned char *kinds)
{
    (void)device, (void)unused, (void)mapnum, (void)hostaddrs, (void)sizes, (void)kinds;
}

MUSTER_OMP_EXPORT void GOMP_target_update_ext(int device, size_t mapnum, void **hostaddrs, size_t *sizes,
                                              unsigned short *kinds, unsigned flags, void **depend)
{
    (void)device, (void)mapnum, (void)hostaddrs, (void)sizes, (void)kinds, (void)flags, (void)depend;
}

MUSTER_OMP_EXPORT void GOMP_target_enter_exit_data(int device, size_t mapnum, void **hostaddrs, size_t *sizes,
                                                   unsigned short *kinds, unsigned flags, void **depend)
{
    (void)device, (void)mapnum, (void)hostaddrs, (void)sizes, (void)kinds, (void)flags, (void)depend;
}

/* Offload images have no device to go to. */
MUSTER_OMP_EXPORT void GOMP_offload_register_ver(unsigned version, const void *host_table, int target_type,
                                                 const void *target_data)
{
    (void)version, (void)host_table, (void)target_type, (void)target_data;
}

MUSTER_OMP_EXPORT void GOMP_offload_register(const void *host_table, int target_type, const void *target_data)
{
    (void)host_table, (void)target_type, (void)target_data;
}

MUSTER_OMP_EXPORT void GOMP_offload_unregister_ver(unsigned version, const void *host_table, int target_type,
                                                   const void *target_data)
{
    (void)version, (void)host_table, (void)target_type, (void)target_data;
}

MUSTER_OMP_EXPORT void GOMP_offload_unregister(const void *host_table, int target_type, const void *target_data)
{
    (void)host_table, (void)target_type, (void)target_data;
}

/* ---- GOMP_error, GOMP_warning: the `error` directive ----
 * msglen (size_t)-1 means msg is NUL-terminated.  The text is libgomp's,
 * under our name. */

static void print_directive_message(const char *prefix, const char *msg, size_t msglen)
{
    fprintf(stderr, "\nlibmuster-omp: %s", prefix);
    if (msg != NULL) {
        fputs(": ", stderr);
        if (msglen == (size_t)-1)
            fputs(msg, stderr);
        else
            fwrite(msg, 1, msglen, stderr);
    }
    fputc('\n', stderr);
}

MUSTER_OMP_EXPORT void GOMP_warning(const char *msg, size_t msglen)
{
    print_directive_message("error directive encountered", msg, msglen);
}

MUSTER_OMP_EXPORT void GOMP_error(const char *msg, size_t msglen)
{
    print_directive_message("fatal error: error directive encountered", msg, msglen);
    exit(EXIT_FAILURE);
}

/* What gcc emits for `allocate` clauses and directives. */
MUSTER_OMP_EXPORT void *GOMP_alloc(size_t alignment, size_t size, uintptr_t allocator)
{
    return omp_aligned_alloc(alignment, size, (omp_allocator_handle_t)allocator);
}

MUSTER_OMP_EXPORT void GOMP_free(void *ptr, uintptr_t allocator)
{
    omp_free(ptr, (omp_allocator_handle_t)allocator);
}
