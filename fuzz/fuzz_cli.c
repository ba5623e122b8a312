/* libFuzzer target: the muster command line.  The input, split at NUL
 * bytes, is the arguments after "muster"; every command parses them as it
 * would, and (cli_parsing_only) returns once they parse where it would go
 * on to measure, run a program or simulate.  The exit status must be one
 * of the three the command documents. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "muster_main.h"

enum { MAX_ARGS = 24 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cli_parsing_only = 1;
    char *text = malloc(size + 1);
    if (text == NULL)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    char *argv[MAX_ARGS + 2] = {"muster"};
    int argc = 1;
    for (size_t at = 0; at < size && argc <= MAX_ARGS; at += strlen(text + at) + 1)
        argv[argc++] = text + at;
    argv[argc] = NULL;
    int rc = muster_main(argc, argv);
    if (rc != CLI_OK && rc != CLI_FAILED && rc != CLI_USAGE)
        abort();
    free(text);
    return 0;
}
