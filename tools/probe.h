#ifndef MUSTER_TOOLS_PROBE_H
#define MUSTER_TOOLS_PROBE_H

/* `muster probe`: argv[0] is "probe". */
int probe_main(int argc, char **argv);

#endif
