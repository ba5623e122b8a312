/* gfortran's and flang's OpenMP API entry points (src/omp/fortran/): the
 * omp_*_ names that Fortran's omp_lib module and omp_lib.h make a program
 * call.  An adapter like gomp/ and kmp/: every routine translates its
 * arguments and calls the C routine of the same name, which does the work;
 * none is implemented twice, and nothing here reaches into the runtime.
 *
 * gfortran's conventions (libgomp's omp_lib.f90 and fortran.c):
 *   - arguments by reference;
 *   - NAME_8_ for -fdefault-integer-8, where the routine has an integer or
 *     logical argument: the same routine, 8-byte arguments, clamped to int;
 *   - LOGICAL results and arguments are 4 bytes (8 in the _8_ forms), 1 for
 *     true;
 *   - character arguments are not NUL-terminated: their lengths come as
 *     hidden size_t arguments after the visible ones, and a character
 *     result is padded with blanks;
 *   - lock handles: omp_lock_kind 4 holds the C omp_lock_t itself;
 *     omp_nest_lock_kind 8 holds a pointer to a C omp_nest_lock_t (16
 *     bytes: too big to hold in place), made at init, freed at destroy;
 *   - allocator, memory-space and event handles are intptr_t.
 * flang (and programs linked against LLVM's libomp) mostly call the C names
 * (bind(c) in flang's omp_lib); what it calls by these names (the character
 * routines, omp_init_allocator) it calls at LLVM's version node VERSION,
 * which version_names.S gives every name here. */
#ifndef MUSTER_OMP_FORTRAN_H
#define MUSTER_OMP_FORTRAN_H

#include <limits.h>
#include <stdint.h>

/* Exported; the version script (libmuster-omp.map) gives the node. */
#define FORTRAN_ENTRY __attribute__((visibility("default")))

/* A Fortran LOGICAL result: 1 for true (gfortran assumes 0 or 1). */
static inline int32_t fortran_logical(int c_truth)
{
    return c_truth != 0;
}

/* An 8-byte Fortran integer as the C routine's int: clamped, as libgomp does. */
static inline int fortran_int8(int64_t v)
{
    return v < INT_MIN ? INT_MIN : v > INT_MAX ? INT_MAX : (int)v;
}

#endif
