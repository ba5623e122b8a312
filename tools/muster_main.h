/* The muster command as a function: main.c calls it, and so does the
 * command-line fuzzer (fuzz/fuzz_cli.c), with cli_parsing_only set. */
#ifndef MUSTER_TOOLS_MUSTER_MAIN_H
#define MUSTER_TOOLS_MUSTER_MAIN_H

int muster_main(int argc, char **argv);

#endif
