#ifndef MUSTER_TOOLS_RUN_H
#define MUSTER_TOOLS_RUN_H

/* `muster run`: argv[0] is "run". */
int run_main(int argc, char **argv);

#endif
