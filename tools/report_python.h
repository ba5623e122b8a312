/* Pictures come from the Python report package (python/muster_report, with
 * matplotlib): the command writes JSON to a temporary file and runs
 * `python3 -m muster_report KIND IN.json OUT.png`. */
#ifndef MUSTER_TOOLS_REPORT_PYTHON_H
#define MUSTER_TOOLS_REPORT_PYTHON_H

#include <stddef.h>
#include <stdio.h>

/* The python3 to run: env MUSTER_REPORT_PYTHON, else the one CMake found
 * with matplotlib, else "python3". */
const char *report_python_interpreter(void);

/* Opens a new temporary .json file for writing; its path goes to path. */
FILE *report_python_temp_json(char *path, size_t path_len);

/* Runs the report package; CLI_OK, or CLI_FAILED after a message naming
 * what is missing (python3, matplotlib, the package). */
int report_python_run(const char *prog, const char *kind, const char *json_path, const char *png_path);

#endif
