/* libmuster-omp: what display.c offers the rest of the runtime: the
 * OMP_DISPLAY_ENV block and the affinity format.  Not installed. */
#ifndef MUSTER_OMP_DISPLAY_H
#define MUSTER_OMP_DISPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "omp/env.h"
#include "omp/thread.h"

/* Writes the OMP_DISPLAY_ENV block (libgomp's format plus libmuster-omp's
 * own lines) for the ICVs and settings given to out. */
void muster_omp_display_env_to(FILE *out, const muster_omp_icvs *icvs, const muster_omp_globals *globals,
                               const muster_omp_env_extras *extras, bool verbose);


/* Expands an affinity format (OpenMP 5.1 §3.13.1: %t %T %L %n %N %a %H %P
 * %i %A and their %{long_name} forms, with 0 . and width modifiers) for
 * the calling thread into buf like snprintf; returns the full length.
 * NULL or "" format: the affinity-format-var. */
size_t muster_omp_capture_affinity(char *buf, size_t size, const char *format);

/* The affinity-format-var into buf like snprintf (full length returned):
 * omp_set_affinity_format's value, else env_format (the environment's). */
size_t muster_omp_affinity_format_current(char *buf, size_t size, const char *env_format);

/* An affinity line on `out` (omp_display_affinity's work).  libgomp writes
 * them on stderr, libomp on stdout: the ABI layers choose. */
void muster_omp_display_affinity_to(FILE *out, const char *format);

/* The program has used LLVM's ABI (the kmp layer's forks say so): its
 * OMP_DISPLAY_AFFINITY lines go to stdout, as libomp writes them. */
void muster_omp_display_as_libomp(void);

/* OMP_DISPLAY_AFFINITY: member.c calls this in each thread as it starts
 * an implicit task (self->team, self->id and self->place set); it prints
 * the affinity line when the variable is true and what the format shows
 * has changed since the thread's last line.  One load when off. */
void muster_omp_affinity_display_on_start(muster_omp_thread *self);

#endif
