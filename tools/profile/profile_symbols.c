/* Naming callers by source line: addr2line (binutils), once per object,
 * with every address the profile has in it.  A return address points
 * after its call, so the line asked for is that of the byte before. */
#include "profile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Runs argv with its stdout into buf (NUL-terminated, cut at len - 1);
 * stderr goes nowhere.  0 when it ran and exited 0. */
static int capture(char *const argv[], char *buf, size_t len)
{
    int fds[2];
    if (pipe(fds) != 0)
        return -1;
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        dup2(fds[1], 1);
        if (null >= 0)
            dup2(null, 2);
        close(fds[0]);
        execvp(argv[0], argv);
        _exit(127);
    }
    close(fds[1]);
    size_t used = 0;
    for (;;) {
        ssize_t n = read(fds[0], buf + used, len - 1 - used);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        used += (size_t)n;
        if (used == len - 1) { /* full: drain the rest so the child ends */
            char sink[4096];
            while (read(fds[0], sink, sizeof sink) > 0)
                ;
            break;
        }
    }
    buf[used] = '\0';
    close(fds[0]);
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/* One object's addresses: "FUNCTION\nFILE:LINE[ (discriminator N)]\n" each. */
static void symbolize_object(profile *p, const char *object)
{
    enum { MAX_ADDRESSES = 256 };
    profile_where *asked[MAX_ADDRESSES];
    char texts[MAX_ADDRESSES][24];
    char *argv[MAX_ADDRESSES + 6] = {"addr2line", "-C", "-f", "-e", (char *)object};
    size_t n = 0;
    for (size_t i = 0; i < p->nwheres && n < MAX_ADDRESSES; i++) {
        profile_where *w = &p->wheres[i];
        if (strcmp(w->object, object) != 0)
            continue;
        snprintf(texts[n], sizeof texts[n], "%#lx", w->offset > 0 ? w->offset - 1 : 0);
        argv[5 + n] = texts[n];
        asked[n++] = w;
    }
    argv[5 + n] = NULL;
    static char out[1 << 18];
    if (n == 0 || capture(argv, out, sizeof out) != 0)
        return;
    char *line = out;
    for (size_t i = 0; i < n && line != NULL && *line; i++) {
        char *function = line;
        char *place = strchr(function, '\n');
        if (place == NULL)
            break;
        *place++ = '\0';
        char *next = strchr(place, '\n');
        if (next != NULL)
            *next++ = '\0';
        line = next;
        profile_where *w = asked[i];
        snprintf(w->function, sizeof w->function, "%.255s", strcmp(function, "??") == 0 ? "" : function);
        char *colon = strrchr(place, ':');
        char *paren = strstr(place, " (discriminator");
        if (paren != NULL) {
            *paren = '\0';
            colon = strrchr(place, ':');
        }
        if (colon == NULL || strncmp(place, "??", 2) == 0)
            continue;
        *colon = '\0';
        w->line = (unsigned)strtoul(colon + 1, NULL, 10);
        if (w->line != 0)
            snprintf(w->file, sizeof w->file, "%.511s", place);
    }
}

void profile_symbolize(profile *p)
{
    for (size_t i = 0; i < p->nwheres; i++) {
        const char *object = p->wheres[i].object;
        size_t first = 0;
        while (strcmp(p->wheres[first].object, object) != 0)
            first++;
        if (object[0] != '\0' && first == i)
            symbolize_object(p, object);
    }
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash != NULL ? slash + 1 : path;
}

void profile_where_text(const profile_where *w, char *buf, size_t len)
{
    if (w->file[0] != '\0')
        snprintf(buf, len, "%s:%u", base_name(w->file), w->line);
    else if (w->object[0] != '\0')
        snprintf(buf, len, "%s+%#lx", base_name(w->object), w->offset);
    else
        snprintf(buf, len, "?");
}
