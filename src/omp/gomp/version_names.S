/* Second names at OMP_1.0 for the C lock routines, where binaries of gcc
 * before 4.4 (OpenMP 2.5) bind them, as libgomp keeps them:
 *  - the simple lock was 4 bytes then too: the same routines;
 *  - the nest lock was 8 bytes (owner, count), too few for muster's, so
 *    these names go to the 8-byte nest lock that holds a pointer to one,
 *    which LLVM's ABI needs as well (kmp/lock.c).
 * A tail jump each (platform/second_names.inc says why).  The Fortran
 * names have their own (fortran/version_names.S). */

#include "platform/second_names.inc"

/* name@OMP_1.0, jumping to target. */
.macro AT_OMP_1_0 name, target
    SECOND_NAME muster_gomp_v1_\name, \name, \target, OMP_1.0
.endm

    .text
AT_OMP_1_0 omp_init_lock, omp_init_lock
AT_OMP_1_0 omp_destroy_lock, omp_destroy_lock
AT_OMP_1_0 omp_set_lock, omp_set_lock
AT_OMP_1_0 omp_unset_lock, omp_unset_lock
AT_OMP_1_0 omp_test_lock, omp_test_lock
AT_OMP_1_0 omp_init_nest_lock, muster_kmp_init_nest_lock
AT_OMP_1_0 omp_destroy_nest_lock, muster_kmp_destroy_nest_lock
AT_OMP_1_0 omp_set_nest_lock, muster_kmp_set_nest_lock
AT_OMP_1_0 omp_unset_nest_lock, muster_kmp_unset_nest_lock
AT_OMP_1_0 omp_test_nest_lock, muster_kmp_test_nest_lock

    .section .note.GNU-stack,"",%progbits
