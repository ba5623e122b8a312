#include "report_python.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"

#ifndef MUSTER_REPORT_PYTHON
#define MUSTER_REPORT_PYTHON "python3"
#endif
#ifndef MUSTER_PYTHON_DIR
#define MUSTER_PYTHON_DIR "python"
#endif

FILE *report_python_temp_json(char *path, size_t path_len)
{
    const char *dir = getenv("TMPDIR");
    snprintf(path, path_len, "%s/muster-report-XXXXXX.json", dir && *dir ? dir : "/tmp");
    int fd = mkstemps(path, 5);
    if (fd < 0)
        return NULL;
    FILE *f = fdopen(fd, "w");
    if (f == NULL) {
        close(fd);
        unlink(path);
    }
    return f;
}

const char *report_python_interpreter(void)
{
    /* The Python CMake found with matplotlib (MUSTER_REPORT_PYTHON at
     * configure time); the environment variable of the same name wins. */
    const char *python = getenv("MUSTER_REPORT_PYTHON");
    return python != NULL && *python != '\0' ? python : MUSTER_REPORT_PYTHON;
}

int report_python_run(const char *prog, const char *kind, const char *json_path, const char *png_path)
{
    const char *dir = getenv("MUSTER_PYTHON_DIR");
    if (dir == NULL || *dir == '\0')
        dir = MUSTER_PYTHON_DIR;
    pid_t child = fork();
    if (child < 0) {
        fprintf(stderr, "%s: cannot start python3: %s\n", prog, strerror(errno));
        return CLI_FAILED;
    }
    if (child == 0) {
        setenv("PYTHONPATH", dir, 1);
        const char *python = report_python_interpreter();
        execlp(python, python, "-m", "muster_report", kind, json_path, png_path, (char *)NULL);
        fprintf(stderr, "%s: cannot run %s (needed for --png): %s\n", prog, python, strerror(errno));
        _exit(127);
    }
    int status = 0;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR)
        continue;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return CLI_OK;
    if (!(WIFEXITED(status) && WEXITSTATUS(status) == 127))
        fprintf(stderr, "%s: the %s picture was not made (python3 -m muster_report in %s failed; "
                        "is python3-matplotlib installed?)\n", prog, kind, dir);
    return CLI_FAILED;
}
