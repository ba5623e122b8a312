#ifndef MUSTER_TOOLS_TOPOLOGY_H
#define MUSTER_TOOLS_TOPOLOGY_H

/* `muster topology`: argv[0] is "topology". */
int topology_main(int argc, char **argv);

#endif
