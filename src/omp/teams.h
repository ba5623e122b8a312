/* Host teams (target.c), for the ICV functions in api.c.
 *
 * libgomp runs the teams of a host `teams` construct one after another on
 * the encountering thread; target.c does the same and keeps, per thread,
 * which team is running and how many there are.  api.c answers
 * omp_get_team_num() with muster_omp_host_team_num() and omp_get_num_teams()
 * with muster_omp_host_num_teams(); omp_set_num_teams / omp_get_max_teams
 * and omp_set_teams_thread_limit / omp_get_teams_thread_limit read and write
 * the two device ICVs below (env.c sets them from OMP_NUM_TEAMS and
 * OMP_TEAMS_THREAD_LIMIT). */
#ifndef MUSTER_OMP_TEAMS_H
#define MUSTER_OMP_TEAMS_H

/* The calling thread's team number in the innermost host teams region: 0 outside one. */
unsigned muster_omp_host_team_num(void);
/* Teams in that region: 1 outside one. */
unsigned muster_omp_host_num_teams(void);

/* nteams-var: teams a `teams` construct without num_teams creates; 0 = the
 * default (3, as libgomp). */
unsigned muster_omp_nteams_var(void);
void muster_omp_set_nteams_var(unsigned nteams);

/* teams-thread-limit-var: the thread limit inside host teams without a
 * thread_limit clause; 0 = none. */
unsigned muster_omp_teams_thread_limit_var(void);
void muster_omp_set_teams_thread_limit_var(unsigned limit);

#endif
