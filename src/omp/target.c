/* Host teams, target regions run on the host as libgomp does without
 * devices, omp_target_* on host memory, and the memory allocators: what
 * both ABI layers' teams, target and allocate entry points run on.
 *
 * There are no devices: omp_get_num_devices() is 0, so the host (initial
 * device) is device number 0.  A target region runs at once on the
 * encountering thread as a fresh initial thread (no enclosing team, ICVs
 * from the environment), as libgomp's host fallback does. */
#include <errno.h>
#include <limits.h>
#include <omp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "omp/internal.h"
#include "omp/env.h"

/* ---- host teams ----
 * The league (which team of how many) is api.c's, per thread. */

static unsigned clamp_limit(unsigned limit)
{
    return limit > INT_MAX ? UINT_MAX : limit;
}

void muster_omp_teams_limit_threads(unsigned thread_limit)
{
    if (thread_limit != 0)
        muster_omp_self()->icvs.thread_limit = clamp_limit(thread_limit);
}

bool muster_omp_host_teams_step(bool first, unsigned num_teams)
{
    if (first) {
        muster_omp_set_league(num_teams ? num_teams : 1, 0);
        return true;
    }
    unsigned rank = muster_omp_league_rank();
    if (rank + 1 >= muster_omp_league_size())
        return false;
    muster_omp_set_league(muster_omp_league_size(), rank + 1);
    return true;
}

void muster_omp_host_teams(void (*fn)(void *), void *data, unsigned num_teams, unsigned thread_limit)
{
    muster_omp_thread *self = muster_omp_self();
    unsigned saved_limit = self->icvs.thread_limit;
    muster_omp_teams_limit_threads(thread_limit != 0 ? thread_limit : muster_omp_teams_thread_limit_var());
    if (num_teams == 0)
        num_teams = muster_omp_nteams_var() ? muster_omp_nteams_var() : 3;
    unsigned outer_size = muster_omp_league_size(), outer_rank = muster_omp_league_rank();
    for (unsigned team = 0; team < num_teams; team++) {
        muster_omp_set_league(num_teams, team);
        fn(data);
    }
    muster_omp_set_league(outer_size, outer_rank);
    self->icvs.thread_limit = saved_limit;
}

/* ---- target regions ---- */

void muster_omp_target_run_on_host(void (*fn)(void *), void *arg, unsigned thread_limit)
{
    muster_omp_thread *self = muster_omp_self();
    muster_omp_thread saved = *self;
    unsigned saved_size = muster_omp_league_size(), saved_rank = muster_omp_league_rank();
    self->team = NULL;
    self->id = 0;
    self->icvs = muster_omp_globals_get()->icvs;
    self->ws_private = NULL;
    self->ws_sequence = 0;
    self->barriers_passed = 0;
    self->region = NULL;
    memset(self->pools, 0, sizeof self->pools);
    muster_omp_set_league(1, 0);
    if (thread_limit > 0)
        self->icvs.thread_limit = thread_limit > INT_MAX ? INT_MAX : thread_limit;
    fn(arg);
    self->team = NULL;
    muster_omp_pool_exit(self);
    *self = saved;
    muster_omp_set_league(saved_size, saved_rank);
}

/* ---- device memory routines on the host ---- */

/* The host is device 0: omp_get_num_devices() with no devices.  (OpenMP
 * 5.2's omp_initial_device, -1, is not in gcc 12's omp.h, and libgomp 12
 * treats -1 as no device; so do we.) */
static bool is_host_device(int device)
{
    return device == 0;
}

MUSTER_OMP_EXPORT void *omp_target_alloc(size_t size, int device)
{
    return is_host_device(device) ? malloc(size) : NULL;
}

MUSTER_OMP_EXPORT void omp_target_free(void *ptr, int device)
{
    if (is_host_device(device))
        free(ptr);
}

MUSTER_OMP_EXPORT int omp_target_is_present(const void *ptr, int device)
{
    (void)ptr;
    return is_host_device(device);
}

MUSTER_OMP_EXPORT int omp_target_memcpy(void *dst, const void *src, size_t length, size_t dst_offset,
                                        size_t src_offset, int dst_device, int src_device)
{
    if (!is_host_device(dst_device) || !is_host_device(src_device))
        return EINVAL;
    memmove((char *)dst + dst_offset, (const char *)src + src_offset, length);
    return 0;
}

/* Copies a num_dims-dimensional sub-volume; dimension 0 is the outermost. */
static void copy_rect(char *dst, const char *src, size_t element_size, int num_dims, const size_t *volume,
                      const size_t *dst_offsets, const size_t *src_offsets, const size_t *dst_dimensions,
                      const size_t *src_dimensions)
{
    if (num_dims == 1) {
        memmove(dst + dst_offsets[0] * element_size, src + src_offsets[0] * element_size,
                volume[0] * element_size);
        return;
    }
    size_t dst_stride = element_size, src_stride = element_size;
    for (int d = 1; d < num_dims; d++) {
        dst_stride *= dst_dimensions[d];
        src_stride *= src_dimensions[d];
    }
    for (size_t i = 0; i < volume[0]; i++)
        copy_rect(dst + (dst_offsets[0] + i) * dst_stride, src + (src_offsets[0] + i) * src_stride, element_size,
                  num_dims - 1, volume + 1, dst_offsets + 1, src_offsets + 1, dst_dimensions + 1,
                  src_dimensions + 1);
}

MUSTER_OMP_EXPORT int omp_target_memcpy_rect(void *dst, const void *src, size_t element_size, int num_dims,
                                             const size_t *volume, const size_t *dst_offsets,
                                             const size_t *src_offsets, const size_t *dst_dimensions,
                                             const size_t *src_dimensions, int dst_device, int src_device)
{
    if (dst == NULL && src == NULL)
        return INT_MAX; /* the number of dimensions supported */
    if (!is_host_device(dst_device) || !is_host_device(src_device) || num_dims < 1 || dst == NULL || src == NULL)
        return EINVAL;
    copy_rect(dst, src, element_size, num_dims, volume, dst_offsets, src_offsets, dst_dimensions, src_dimensions);
    return 0;
}

/* Associating host memory with a device pointer needs a device. */
MUSTER_OMP_EXPORT int omp_target_associate_ptr(const void *host_ptr, const void *device_ptr, size_t size,
                                               size_t device_offset, int device)
{
    (void)host_ptr, (void)device_ptr, (void)size, (void)device_offset, (void)device;
    return EINVAL;
}

MUSTER_OMP_EXPORT int omp_target_disassociate_ptr(const void *ptr, int device)
{
    (void)ptr, (void)device;
    return EINVAL;
}

/* ---- memory allocators ----
 *
 * Every memory space is host memory.  The predefined allocators
 * (omp_default_mem_alloc ... omp_thread_mem_alloc) are malloc with the
 * requested alignment; an allocator made by omp_init_allocator adds its
 * alignment trait, a pool_size limit and a fallback for when the pool or
 * malloc runs out (default_mem_fb: use the default allocator, null_fb:
 * return NULL, abort_fb: abort, allocator_fb: use fb_data).  Each block
 * carries a header with what omp_free and omp_realloc need to know. */

typedef struct custom_allocator {
    size_t alignment;          /* 0: none beyond the request */
    size_t pool_size;          /* 0: unlimited */
    _Atomic size_t pool_used;
    uintptr_t fallback;        /* omp_atv_*_fb */
    omp_allocator_handle_t fb_data;
} custom_allocator;

/* Just before each block returned to the program. */
typedef struct block_header {
    void *base;                      /* what malloc returned */
    size_t size;                     /* bytes the program asked for */
    omp_allocator_handle_t allocator;/* the allocator that provided it */
} block_header;

#define PREDEFINED_ALLOCATOR_LAST omp_thread_mem_alloc

static _Thread_local omp_allocator_handle_t default_allocator = omp_default_mem_alloc;

static bool is_predefined(omp_allocator_handle_t allocator)
{
    return allocator <= PREDEFINED_ALLOCATOR_LAST;
}

static custom_allocator *as_custom(omp_allocator_handle_t allocator)
{
    return is_predefined(allocator) ? NULL : (custom_allocator *)(uintptr_t)allocator;
}

static bool power_of_two(uintptr_t v)
{
    return v != 0 && (v & (v - 1)) == 0;
}

/* Reads the traits into a; false when one is invalid or unsupported. */
static bool apply_trait(custom_allocator *a, const omp_alloctrait_t *trait)
{
    uintptr_t value = trait->value;
    switch (trait->key) {
    case omp_atk_alignment:
        if (value == (uintptr_t)omp_atv_default)
            return true;
        if (!power_of_two(value))
            return false;
        a->alignment = value;
        return true;
    case omp_atk_pool_size:
        a->pool_size = value == (uintptr_t)omp_atv_default ? 0 : value;
        return true;
    case omp_atk_fallback:
        if (value == (uintptr_t)omp_atv_default)
            value = omp_atv_default_mem_fb;
        if (value < omp_atv_default_mem_fb || value > omp_atv_allocator_fb)
            return false;
        a->fallback = value;
        return true;
    case omp_atk_fb_data:
        a->fb_data = (omp_allocator_handle_t)value;
        return true;
    case omp_atk_pinned:
        /* Pinned memory is not provided (libgomp 12 refuses it too). */
        return value == omp_atv_false || value == (uintptr_t)omp_atv_default;
    case omp_atk_sync_hint:
    case omp_atk_access:
    case omp_atk_partition:
        return true; /* every choice is satisfied by ordinary host memory */
    default:
        return false;
    }
}

MUSTER_OMP_EXPORT omp_allocator_handle_t omp_init_allocator(omp_memspace_handle_t memspace, int ntraits,
                                                            const omp_alloctrait_t traits[])
{
    if (memspace > omp_low_lat_mem_space)
        return omp_null_allocator;
    custom_allocator a = {.fallback = omp_atv_default_mem_fb};
    for (int i = 0; i < ntraits; i++)
        if (!apply_trait(&a, &traits[i]))
            return omp_null_allocator;
    custom_allocator *made = malloc(sizeof *made);
    if (made == NULL)
        return omp_null_allocator;
    *made = a;
    return (omp_allocator_handle_t)(uintptr_t)made;
}

MUSTER_OMP_EXPORT void omp_destroy_allocator(omp_allocator_handle_t allocator)
{
    free(as_custom(allocator));
}

MUSTER_OMP_EXPORT void omp_set_default_allocator(omp_allocator_handle_t allocator)
{
    default_allocator = allocator == omp_null_allocator ? omp_default_mem_alloc : allocator;
}

MUSTER_OMP_EXPORT omp_allocator_handle_t omp_get_default_allocator(void)
{
    return default_allocator;
}

/* Takes `size` bytes from a's pool; false when it would overflow. */
static bool pool_take(custom_allocator *a, size_t size)
{
    if (a == NULL || a->pool_size == 0)
        return true;
    /* relaxed: a byte count; the memory itself comes from malloc. */
    size_t used = atomic_load_explicit(&a->pool_used, memory_order_relaxed);
    do {
        if (size > a->pool_size || used > a->pool_size - size)
            return false;
    } while (!atomic_compare_exchange_weak_explicit(&a->pool_used, &used, used + size, memory_order_relaxed,
                                                    memory_order_relaxed));
    return true;
}

static void pool_return(custom_allocator *a, size_t size)
{
    if (a != NULL && a->pool_size != 0)
        atomic_fetch_sub_explicit(&a->pool_used, size, memory_order_relaxed); /* relaxed: as in pool_take */
}

/* malloc with alignment and a header; NULL when out of memory. */
static void *allocate_block(size_t alignment, size_t size, omp_allocator_handle_t allocator)
{
    if (alignment < _Alignof(max_align_t))
        alignment = _Alignof(max_align_t);
    size_t room = sizeof(block_header) + alignment - 1;
    if (size > SIZE_MAX - room)
        return NULL;
    char *base = malloc(room + size);
    if (base == NULL)
        return NULL;
    uintptr_t user = ((uintptr_t)base + sizeof(block_header) + alignment - 1) & ~(uintptr_t)(alignment - 1);
    block_header *header = (block_header *)user - 1;
    *header = (block_header){.base = base, .size = size, .allocator = allocator};
    return (void *)user;
}

/* Fallback allocators tried at most this many times: allocator_fb chains
 * may form a cycle. */
#define MAX_FALLBACKS 16

/* The allocator a fails over to.  allocator_fb without fb_data means the
 * default memory allocator (libgomp 12 accepts that trait set too). */
static omp_allocator_handle_t fallback_of(const custom_allocator *a)
{
    if (a->fallback == omp_atv_allocator_fb && a->fb_data != omp_null_allocator)
        return a->fb_data;
    return omp_default_mem_alloc;
}

static void *allocate(size_t alignment, size_t size, omp_allocator_handle_t allocator)
{
    if (allocator == omp_null_allocator)
        allocator = default_allocator;
    if (!power_of_two(alignment))
        alignment = 1;
    for (int tries = 0; tries <= MAX_FALLBACKS; tries++) {
        custom_allocator *a = as_custom(allocator);
        if (a != NULL && a->alignment > alignment)
            alignment = a->alignment;
        if (pool_take(a, size)) {
            void *p = allocate_block(alignment, size, allocator);
            if (p != NULL)
                return p;
            pool_return(a, size);
        }
        if (a == NULL || a->fallback == omp_atv_null_fb)
            return NULL;
        if (a->fallback == omp_atv_abort_fb) {
            muster_omp_fatal("out of memory allocating %zu bytes (abort_fb)", size);
        }
        allocator = fallback_of(a);
    }
    return NULL;
}

MUSTER_OMP_EXPORT void *omp_aligned_alloc(size_t alignment, size_t size, omp_allocator_handle_t allocator)
{
    return size == 0 ? NULL : allocate(alignment, size, allocator);
}

MUSTER_OMP_EXPORT void *omp_alloc(size_t size, omp_allocator_handle_t allocator)
{
    return omp_aligned_alloc(1, size, allocator);
}

MUSTER_OMP_EXPORT void *omp_aligned_calloc(size_t alignment, size_t nmemb, size_t size,
                                           omp_allocator_handle_t allocator)
{
    if (nmemb != 0 && size > SIZE_MAX / nmemb)
        return NULL;
    void *p = omp_aligned_alloc(alignment, nmemb * size, allocator);
    if (p != NULL)
        memset(p, 0, nmemb * size);
    return p;
}

MUSTER_OMP_EXPORT void *omp_calloc(size_t nmemb, size_t size, omp_allocator_handle_t allocator)
{
    return omp_aligned_calloc(1, nmemb, size, allocator);
}

MUSTER_OMP_EXPORT void omp_free(void *ptr, omp_allocator_handle_t allocator)
{
    (void)allocator; /* the block knows its own */
    if (ptr == NULL)
        return;
    block_header *header = (block_header *)ptr - 1;
    pool_return(as_custom(header->allocator), header->size);
    free(header->base);
}

/* allocator omp_null_allocator: free_allocator's, else the block's own. */
MUSTER_OMP_EXPORT void *omp_realloc(void *ptr, size_t size, omp_allocator_handle_t allocator,
                                    omp_allocator_handle_t free_allocator)
{
    if (ptr == NULL)
        return omp_alloc(size, allocator);
    if (size == 0) {
        omp_free(ptr, free_allocator);
        return NULL;
    }
    block_header *header = (block_header *)ptr - 1;
    if (allocator == omp_null_allocator)
        allocator = free_allocator != omp_null_allocator ? free_allocator : header->allocator;
    void *moved = omp_alloc(size, allocator);
    if (moved == NULL)
        return NULL;
    memcpy(moved, ptr, header->size < size ? header->size : size);
    omp_free(ptr, free_allocator);
    return moved;
}
