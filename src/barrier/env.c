/* MUSTER_BARRIER, read once per process.  Garbage gets one warning line
 * naming the variable, the value and what is used instead; it never fails a
 * call.  (The wait policy's variables are wait/policy.c's.) */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static muster_env_config config;
static pthread_once_t config_once = PTHREAD_ONCE_INIT;

static void read_algorithm(void)
{
    const char *value = getenv("MUSTER_BARRIER");
    if (value == NULL)
        return;
    if (muster_algorithm_parse(value, &config.algorithm) == MUSTER_OK) {
        config.has_algorithm = true;
        return;
    }
    char known[512] = "";
    for (int a = 0; a < MUSTER_ALG_COUNT; a++) {
        strcat(known, a ? ", " : "");
        strcat(known, muster_algorithm_name((muster_algorithm)a));
    }
    char problem[600];
    snprintf(problem, sizeof problem, "is not one of %s", known);
    muster_warn_env("MUSTER_BARRIER", value, problem, "auto");
}

void muster_env_reread(void)
{
    config = (muster_env_config){0};
    read_algorithm();
}

const muster_env_config *muster_env(void)
{
    pthread_once(&config_once, read_algorithm);
    return &config;
}
