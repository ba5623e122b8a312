/* The Fortran names of libomp's kmp_* API (kmp/api.c): what a Fortran
 * program that calls kmp_set_blocktime and the rest without an interface
 * (libomp's omp_lib.h style) links to.  Arguments by reference, as libomp
 * takes them; a character argument with its hidden length.  libomp has no
 * _8_ forms of these, nor does muster. */
#include <stdlib.h>
#include <string.h>

#include "omp/fortran/fortran.h"
#include "omp/kmp/kmp_api.h"

/* void NAME_(const int32_t *) around void NAME(int). */
#define BY_REFERENCE_SETTER(name)                       \
    FORTRAN_ENTRY void name##_(const int32_t *value);   \
    FORTRAN_ENTRY void name##_(const int32_t *value)    \
    {                                                   \
        name(*value);                                   \
    }

/* void NAME_(void) around void NAME(void). */
#define NO_ARGUMENTS(name)                  \
    FORTRAN_ENTRY void name##_(void);       \
    FORTRAN_ENTRY void name##_(void)        \
    {                                       \
        name();                             \
    }

/* int32_t NAME_(void) around int NAME(void). */
#define QUERY(name)                         \
    FORTRAN_ENTRY int32_t name##_(void);    \
    FORTRAN_ENTRY int32_t name##_(void)     \
    {                                       \
        return name();                      \
    }

/* int32_t NAME_(const int32_t *proc, void **mask) around NAME(int, void **). */
#define MASK_PROC(name)                                                 \
    FORTRAN_ENTRY int32_t name##_(const int32_t *proc, void **mask);    \
    FORTRAN_ENTRY int32_t name##_(const int32_t *proc, void **mask)     \
    {                                                                   \
        return name(*proc, mask);                                       \
    }

/* int32_t NAME_(void **mask) around int NAME(void **). */
#define MASK_CALL(name)                                 \
    FORTRAN_ENTRY int32_t name##_(void **mask);         \
    FORTRAN_ENTRY int32_t name##_(void **mask)          \
    {                                                   \
        return name(mask);                              \
    }

BY_REFERENCE_SETTER(kmp_set_stacksize)
BY_REFERENCE_SETTER(kmp_set_blocktime)
BY_REFERENCE_SETTER(kmp_set_library)
BY_REFERENCE_SETTER(kmp_set_disp_num_buffers)
NO_ARGUMENTS(kmp_set_library_serial)
NO_ARGUMENTS(kmp_set_library_turnaround)
NO_ARGUMENTS(kmp_set_library_throughput)
NO_ARGUMENTS(kmp_set_warnings_on)
NO_ARGUMENTS(kmp_set_warnings_off)
QUERY(kmp_get_stacksize)
QUERY(kmp_get_blocktime)
QUERY(kmp_get_library)
QUERY(kmp_get_affinity_max_proc)
QUERY(kmp_get_num_known_threads)
MASK_PROC(kmp_set_affinity_mask_proc)
MASK_PROC(kmp_unset_affinity_mask_proc)
MASK_PROC(kmp_get_affinity_mask_proc)
MASK_CALL(kmp_set_affinity)
MASK_CALL(kmp_get_affinity)

FORTRAN_ENTRY void kmp_set_stacksize_s_(const size_t *size);
FORTRAN_ENTRY void kmp_set_stacksize_s_(const size_t *size)
{
    kmp_set_stacksize_s(*size);
}

FORTRAN_ENTRY size_t kmp_get_stacksize_s_(void);
FORTRAN_ENTRY size_t kmp_get_stacksize_s_(void)
{
    return kmp_get_stacksize_s();
}

/* libomp takes the kind by value here, in both languages; so does muster. */
FORTRAN_ENTRY int32_t kmp_get_cancellation_status_(int32_t kind);
FORTRAN_ENTRY int32_t kmp_get_cancellation_status_(int32_t kind)
{
    return kmp_get_cancellation_status(kind);
}

FORTRAN_ENTRY void kmp_create_affinity_mask_(void **mask);
FORTRAN_ENTRY void kmp_create_affinity_mask_(void **mask)
{
    kmp_create_affinity_mask(mask);
}

FORTRAN_ENTRY void kmp_destroy_affinity_mask_(void **mask);
FORTRAN_ENTRY void kmp_destroy_affinity_mask_(void **mask)
{
    kmp_destroy_affinity_mask(mask);
}

/* The settings as a CHARACTER argument: not NUL-terminated, its length
 * hidden after it. */
FORTRAN_ENTRY void kmp_set_defaults_(const char *settings, size_t length);
FORTRAN_ENTRY void kmp_set_defaults_(const char *settings, size_t length)
{
    char *text = malloc(length + 1);
    if (text == NULL)
        return;
    memcpy(text, settings, length);
    text[length] = '\0';
    kmp_set_defaults(text);
    free(text);
}

/* ---- memory: sizes and pointers by reference ---- */

FORTRAN_ENTRY void *kmp_malloc_(const size_t *size);
FORTRAN_ENTRY void *kmp_malloc_(const size_t *size)
{
    return kmp_malloc(*size);
}

FORTRAN_ENTRY void *kmp_aligned_malloc_(const size_t *size, const size_t *alignment);
FORTRAN_ENTRY void *kmp_aligned_malloc_(const size_t *size, const size_t *alignment)
{
    return kmp_aligned_malloc(*size, *alignment);
}

FORTRAN_ENTRY void *kmp_calloc_(const size_t *count, const size_t *size);
FORTRAN_ENTRY void *kmp_calloc_(const size_t *count, const size_t *size)
{
    return kmp_calloc(*count, *size);
}

FORTRAN_ENTRY void *kmp_realloc_(void *const *p, const size_t *size);
FORTRAN_ENTRY void *kmp_realloc_(void *const *p, const size_t *size)
{
    return kmp_realloc(*p, *size);
}

FORTRAN_ENTRY void kmp_free_(void *const *p);
FORTRAN_ENTRY void kmp_free_(void *const *p)
{
    kmp_free(*p);
}
