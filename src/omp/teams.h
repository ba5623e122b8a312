/* Host teams (target.c), for the ICV functions in api.c.
 *
 * libgomp runs the teams of a host `teams` construct one after another on
 * the encountering thread; target.c does the same and keeps, per thread,
 * which team is running and how many there are.  api.c can answer
 * omp_get_team_num() with muster_omp_host_team_num() and omp_get_num_teams()
 * with muster_omp_host_num_teams().
 *
 * api.c as written on the omp-env branch keeps its own league instead, set
 * through muster_omp_set_league(num_teams, team_num), and owns nteams-var
 * and teams-thread-limit-var (omp_get_max_teams, omp_get_teams_thread_limit).
 * target.c works with both: it calls muster_omp_set_league on every change
 * when that function exists, and reads the two settings through
 * omp_get_max_teams / omp_get_teams_thread_limit when they exist, through
 * the functions below otherwise (all weak references). */
#ifndef MUSTER_OMP_TEAMS_H
#define MUSTER_OMP_TEAMS_H

/* The calling thread's team number in the innermost host teams region: 0 outside one. */
unsigned muster_omp_host_team_num(void);
/* Teams in that region: 1 outside one. */
unsigned muster_omp_host_num_teams(void);

/* nteams-var: teams a `teams` construct without num_teams creates; 0 = the
 * default (3, as libgomp).  The setters only matter without api.c's. */
unsigned muster_omp_nteams_var(void);
void muster_omp_set_nteams_var(unsigned nteams);

/* teams-thread-limit-var: the thread limit inside host teams without a
 * thread_limit clause; 0 = none. */
unsigned muster_omp_teams_thread_limit_var(void);
void muster_omp_set_teams_thread_limit_var(unsigned limit);

#endif
