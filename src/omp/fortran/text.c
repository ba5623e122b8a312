/* The Fortran names of the routines with character arguments: the affinity
 * format (omp_set/get_affinity_format, omp_display_affinity,
 * omp_capture_affinity).
 *
 * A Fortran string comes as an address and a hidden length (size_t, after
 * the visible arguments), with no NUL; a string argument is copied into a
 * NUL-terminated one for the C routine, blanks and all, and a string
 * result is the C routine's text, cut to the variable's length or padded
 * with blanks.  A format of length 0 is the current affinity format, as an
 * empty or NULL C format is.
 *
 * omp_get_affinity_format_ and omp_capture_affinity_ return size_t:
 * gfortran's omp_lib declares integer(4), libomp's (flang's) integer of
 * kmp_size_t_kind, 8 bytes, and a size_t result is both (an integer(4)
 * caller reads the low half of the same register). */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "omp/fortran/fortran.h"
#include "omp/kmp/kmp_api.h" /* muster_kmp_display_affinity */
#include "omp/internal.h" /* muster_omp_fatal */

/* A NUL-terminated copy of a Fortran string, in `small` when it fits;
 * free with text_done. */
static char *c_text(const char *text, size_t length, char *small, size_t small_size)
{
    char *copy = length < small_size ? small : malloc(length + 1);
    if (copy == NULL)
        muster_omp_fatal("affinity format: out of memory for a %zu-character string", length);
    memcpy(copy, text, length);
    copy[length] = '\0';
    return copy;
}

static void text_done(char *copy, const char *small)
{
    if (copy != small)
        free(copy);
}

/* The C routine's result, `full` characters long and held NUL-terminated in
 * `from`, into a Fortran variable of `size` characters. */
static void fortran_text(char *to, size_t size, const char *from, size_t full)
{
    size_t kept = full < size ? full : size;
    memcpy(to, from, kept);
    memset(to + kept, ' ', size - kept);
}

/* Calls use(text as a C string): the routines with only a format. */
static void with_c_text(const char *text, size_t length, void (*use)(const char *))
{
    char small[256];
    char *copy = c_text(text, length, small, sizeof small);
    use(copy);
    text_done(copy, small);
}

FORTRAN_ENTRY void omp_set_affinity_format_(const char *format, size_t format_length);
FORTRAN_ENTRY void omp_set_affinity_format_(const char *format, size_t format_length)
{
    with_c_text(format, format_length, omp_set_affinity_format);
}

FORTRAN_ENTRY size_t omp_get_affinity_format_(char *buffer, size_t buffer_length);
FORTRAN_ENTRY size_t omp_get_affinity_format_(char *buffer, size_t buffer_length)
{
    size_t full = omp_get_affinity_format(NULL, 0);
    char *text = malloc(full + 1);
    if (text == NULL)
        muster_omp_fatal("omp_get_affinity_format: out of memory for %zu characters", full);
    full = omp_get_affinity_format(text, full + 1);
    fortran_text(buffer, buffer_length, text, full);
    free(text);
    return full;
}

FORTRAN_ENTRY void omp_display_affinity_(const char *format, size_t format_length);
FORTRAN_ENTRY void omp_display_affinity_(const char *format, size_t format_length)
{
    with_c_text(format, format_length, omp_display_affinity);
}

/* flang's (and libomp's) at VERSION: the C routine of LLVM's ABI, on
 * stdout as libomp writes it. */
__attribute__((symver("omp_display_affinity_@VERSION"))) FORTRAN_ENTRY void
muster_fortran_kmp_display_affinity_(const char *format, size_t format_length);
__attribute__((symver("omp_display_affinity_@VERSION"))) FORTRAN_ENTRY void
muster_fortran_kmp_display_affinity_(const char *format, size_t format_length)
{
    with_c_text(format, format_length, muster_kmp_display_affinity);
}

FORTRAN_ENTRY size_t omp_capture_affinity_(char *buffer, const char *format, size_t buffer_length,
                                           size_t format_length);
FORTRAN_ENTRY size_t omp_capture_affinity_(char *buffer, const char *format, size_t buffer_length,
                                           size_t format_length)
{
    char small[256];
    char *copy = c_text(format, format_length, small, sizeof small);
    char *text = malloc(buffer_length + 1);
    if (text == NULL)
        muster_omp_fatal("omp_capture_affinity: out of memory for %zu characters", buffer_length);
    size_t full = omp_capture_affinity(text, buffer_length + 1, copy);
    fortran_text(buffer, buffer_length, text, full);
    free(text);
    text_done(copy, small);
    return full;
}
