/* What libmuster-omp says on stderr (warn.c): warnings, which programs
 * can switch off, and the one fatal path.  Every layer of the runtime may
 * include it; it includes nothing of the runtime's. */
#ifndef MUSTER_OMP_WARN_H
#define MUSTER_OMP_WARN_H

#include <stdbool.h>

/* Whether the runtime's warnings are wanted (kmp_set_warnings_on/off;
 * on by default): muster_omp_warn_env and the warnings about smaller
 * teams and unbound threads ask. */
void muster_omp_set_warnings(bool on);
bool muster_omp_warnings_wanted(void);
/* One warning line on stderr: "libmuster-omp: VAR='value' problem; using instead". */
void muster_omp_warn_env(const char *variable, const char *value, const char *problem, const char *instead);
/* A statistics switch of the environment (MUSTER_OMP_TASK_STATS,
 * MUSTER_OMP_WAIT_STATS): true for 1; false for 0 or unset, and for
 * anything else, with the warning line. */
bool muster_omp_env_statistics(const char *variable);
/* A runtime error the program cannot go on from: one line on stderr
 * ("libmuster-omp: ..."), then abort.  The runtime's only way to stop. */
_Noreturn void muster_omp_fatal(const char *format, ...) __attribute__((format(printf, 1, 2)));

#endif
