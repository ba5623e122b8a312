/* The `muster model` subcommands and what they share: choosing a machine
 * (a preset, a file, optionally replicated). */
#ifndef MUSTER_TOOLS_MODEL_CLI_H
#define MUSTER_TOOLS_MODEL_CLI_H

#include <stdio.h>

#include "machine/machine.h"

typedef struct model_machine_choice {
    const char *preset, *file;
    unsigned replicate;  /* copies; 0 or 1 = none */
    double replicate_ns; /* latency between copies; 0 = twice the outermost layer */
} model_machine_choice;

/* Matches --preset, --machine and --replicate at argv[*i]: 1 matched, 0 not
 * one of them, -1 after a usage message. */
int model_machine_option(const char *prog, int argc, char **argv, int *i, model_machine_choice *choice);

/* Builds the chosen machine; CLI_OK, or a CLI_* status after a message. */
int model_load_machine(const char *prog, const model_machine_choice *choice, muster_machine *m);

void model_describe_machine(FILE *out, const muster_machine *m);

int model_main(int argc, char **argv);
int model_calibrate_main(int argc, char **argv);

#endif
