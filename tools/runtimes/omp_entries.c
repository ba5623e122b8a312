/* omp_entries.h: asks the program's dynamic loader which OpenMP entry
 * points it cannot bind under a runtime. */
#include "omp_entries.h"

#include "omp_runtime.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define LOADER_SECONDS 10 /* the loader maps and binds; it has no reason to take longer */

static omp_entries_status not_checked(omp_entries_report *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static omp_entries_status not_checked(omp_entries_report *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->why, sizeof r->why, fmt, ap);
    va_end(ap);
    return r->status = OMP_ENTRIES_NOT_CHECKED;
}

/* ---- the executable's program interpreter (PT_INTERP) ---- */

typedef enum { ELF_NOT, ELF_STATIC, ELF_DYNAMIC } elf_kind;

static bool read_at(int fd, off_t offset, void *buf, size_t len)
{
    return pread(fd, buf, len, offset) == (ssize_t)len;
}

/* The interpreter of a 32- or 64-bit ELF executable, into interp. */
static elf_kind program_interpreter(const char *path, char *interp, size_t len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return ELF_NOT;
    unsigned char ident[EI_NIDENT];
    elf_kind kind = ELF_NOT;
    if (!read_at(fd, 0, ident, sizeof ident) || memcmp(ident, ELFMAG, SELFMAG) != 0)
        goto out;
    bool is64 = ident[EI_CLASS] == ELFCLASS64;
    uint64_t phoff, count, entsize;
    if (is64) {
        Elf64_Ehdr eh;
        if (!read_at(fd, 0, &eh, sizeof eh))
            goto out;
        phoff = eh.e_phoff, count = eh.e_phnum, entsize = eh.e_phentsize;
    } else {
        Elf32_Ehdr eh;
        if (!read_at(fd, 0, &eh, sizeof eh))
            goto out;
        phoff = eh.e_phoff, count = eh.e_phnum, entsize = eh.e_phentsize;
    }
    kind = ELF_STATIC;
    for (uint64_t i = 0; i < count && i < 256; i++) {
        uint64_t type, offset, size;
        off_t at = (off_t)(phoff + i * entsize);
        if (is64) {
            Elf64_Phdr ph;
            if (!read_at(fd, at, &ph, sizeof ph))
                break;
            type = ph.p_type, offset = ph.p_offset, size = ph.p_filesz;
        } else {
            Elf32_Phdr ph;
            if (!read_at(fd, at, &ph, sizeof ph))
                break;
            type = ph.p_type, offset = ph.p_offset, size = ph.p_filesz;
        }
        if (type != PT_INTERP || size == 0 || size >= len)
            continue;
        if (read_at(fd, (off_t)offset, interp, (size_t)size)) {
            interp[size] = '\0';
            kind = ELF_DYNAMIC;
        }
        break;
    }
out:
    close(fd);
    return kind;
}

/* ---- the loader's listing ---- */

/* Whether a symbol is an OpenMP runtime's: gcc's, LLVM's, Intel's, OMPT's,
 * OpenACC's. */
static bool openmp_symbol(const char *name)
{
    static const char *const prefixes[] = {"omp_", "ompc_", "ompt_", "GOMP_", "GOACC_", "acc_", "__kmpc_", "kmp_",
                                           "__kmp_"};
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0)
            return true;
    return false;
}

static void add_line(omp_entries_report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void add_line(omp_entries_report *r, const char *fmt, ...)
{
    size_t used = strlen(r->missing), room = sizeof r->missing - used;
    char line[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (strlen(line) + 2 < room)
        snprintf(r->missing + used, room, "%s\n", line);
    else
        r->cut_short = 1;
}

static bool starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* A library line of the listing, "\tNAME => PATH (0x...)" or "\tNAME =>
 * not found": the OpenMP runtime NAME is, as OMP_MAPS_*, else 0. */
static unsigned runtime_mapped(const char *line)
{
    const char *name = line + strspn(line, " \t");
    if (strstr(name, " => ") == NULL)
        return 0;
    if (starts_with(name, "libgomp.so"))
        return OMP_MAPS_LIBGOMP;
    if (starts_with(name, "libomp.so") || starts_with(name, "libiomp5.so"))
        return OMP_MAPS_LIBOMP;
    return 0;
}

/* One line of the loader's listing:
 *   "undefined symbol: NAME, version V\t(FILE)", "undefined symbol: NAME\t(FILE)"
 *   "\tlibfoo.so.1 => not found", "\tlibfoo.so.1 => /path/libfoo.so.1 (0x...)" */
static void read_listing_line(char *line, omp_entries_report *r)
{
    r->runtimes_mapped |= runtime_mapped(line);
    const char *undefined = strstr(line, "undefined symbol: ");
    if (undefined != NULL) {
        char *name = (char *)undefined + strlen("undefined symbol: ");
        char *file = strchr(name, '\t');
        if (file != NULL) {
            *file++ = '\0';
            size_t n = strlen(file); /* "(FILE)" */
            if (n >= 2 && file[0] == '(' && file[n - 1] == ')') {
                file[n - 1] = '\0';
                file++;
            }
        }
        char *version = strstr(name, ", version ");
        if (version != NULL) {
            *version = '\0';
            version += strlen(", version ");
        }
        if (!openmp_symbol(name)) {
            r->other_symbols++;
            return;
        }
        r->missing_entries++;
        add_line(r, "%s\t%s%s%s", file ? file : "?", name, version ? "@" : "", version ? version : "");
        return;
    }
    char *arrow = strstr(line, " => not found");
    if (arrow != NULL) {
        *arrow = '\0';
        const char *lib = line + strspn(line, " \t");
        r->missing_libraries++;
        add_line(r, "(the loader cannot find)\t%s", lib);
    }
}

/* The child: the runtime's environment, the listing mode, the loader. */
static _Noreturn void run_loader(int out, const char *interp, const char *path, const char *library)
{
    char err[512];
    if (library != NULL && omp_use_runtime(library, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        _exit(126);
    }
    setenv("LD_TRACE_LOADED_OBJECTS", "1", 1);
    setenv("LD_WARN", "yes", 1);
    setenv("LD_BIND_NOW", "1", 1);
    dup2(out, 1);
    dup2(out, 2);
    execl(interp, interp, path, (char *)NULL);
    fprintf(stderr, "cannot run the loader %s: %s\n", interp, strerror(errno));
    _exit(127);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Reads the child's listing line by line until it closes; false when it
 * takes longer than LOADER_SECONDS. */
static bool read_listing(int fd, omp_entries_report *r)
{
    char buf[8192];
    size_t held = 0;
    double deadline = now_s() + LOADER_SECONDS;
    for (;;) {
        struct pollfd p = {fd, POLLIN, 0};
        int left_ms = (int)((deadline - now_s()) * 1000);
        if (left_ms <= 0 || poll(&p, 1, left_ms) == 0)
            return false;
        ssize_t n = read(fd, buf + held, sizeof buf - 1 - held);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        held += (size_t)n;
        buf[held] = '\0';
        char *start = buf, *nl;
        while ((nl = strchr(start, '\n')) != NULL) {
            *nl = '\0';
            read_listing_line(start, r);
            start = nl + 1;
        }
        held = strlen(start);
        memmove(buf, start, held);
        if (held == sizeof buf - 1) /* a line longer than the buffer: not one we want */
            held = 0;
    }
    if (held > 0) {
        buf[held] = '\0';
        read_listing_line(buf, r);
    }
    return true;
}

omp_entries_status omp_check_entries(const char *path, const char *library, omp_entries_report *r)
{
    memset(r, 0, sizeof *r);
    char interp[4096];
    elf_kind kind = program_interpreter(path, interp, sizeof interp);
    if (kind == ELF_NOT)
        return not_checked(r, "%s is not an ELF executable (a script? give the program it runs)", path);
    if (kind == ELF_STATIC)
        return r->status = OMP_ENTRIES_STATIC;
    int pipefd[2];
    if (pipe2(pipefd, O_CLOEXEC) != 0)
        return not_checked(r, "pipe: %s", strerror(errno));
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(pipefd[0]);
        close(pipefd[1]);
        return not_checked(r, "fork: %s", strerror(errno));
    }
    if (pid == 0)
        run_loader(pipefd[1], interp, path, library);
    close(pipefd[1]);
    bool answered = read_listing(pipefd[0], r);
    close(pipefd[0]);
    if (!answered)
        kill(pid, SIGKILL);
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (!answered)
        return not_checked(r, "the loader %s did not answer within %d s", interp, LOADER_SECONDS);
    if (r->missing_entries > 0 || r->missing_libraries > 0)
        return r->status = OMP_ENTRIES_MISSING;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return not_checked(r, "the loader %s could not list %s (status %#x)", interp, path, (unsigned)status);
    return r->status = OMP_ENTRIES_OK;
}

omp_abi omp_program_abi(const char *path, char *why, size_t why_len)
{
    if (access(path, R_OK) != 0) {
        snprintf(why, why_len, "%s: %s", path, strerror(errno));
        return OMP_ABI_ERROR;
    }
    static omp_entries_report r; /* 5 KiB: not on the stack */
    switch (omp_check_entries(path, NULL, &r)) {
    case OMP_ENTRIES_STATIC:
        snprintf(why, why_len, "%s is statically linked: no OpenMP runtime can be put under it", path);
        return OMP_ABI_ERROR;
    case OMP_ENTRIES_NOT_CHECKED:
        if (r.runtimes_mapped == 0) {
            snprintf(why, why_len, "%s", r.why);
            return OMP_ABI_ERROR;
        }
        break;
    default:
        break;
    }
    /* A program that needs libomp's entry points cannot run on libgomp,
     * whatever else it maps. */
    if (r.runtimes_mapped & OMP_MAPS_LIBOMP)
        return OMP_ABI_KMP;
    if (r.runtimes_mapped & OMP_MAPS_LIBGOMP)
        return OMP_ABI_GOMP;
    snprintf(why, why_len,
             "%s maps no OpenMP runtime (neither libgomp nor libomp among the libraries its loader lists; "
             "built without -fopenmp, or linked statically?)",
             path);
    return OMP_ABI_NONE;
}

int omp_program_path(const char *name, char *path, size_t len)
{
    if (strchr(name, '/') != NULL) {
        snprintf(path, len, "%s", name);
        return access(path, X_OK) == 0 ? 0 : -1;
    }
    const char *dirs = getenv("PATH");
    for (const char *d = dirs ? dirs : "/usr/bin:/bin"; *d;) {
        const char *end = strchr(d, ':');
        size_t n = end ? (size_t)(end - d) : strlen(d);
        snprintf(path, len, "%.*s/%s", (int)n, n ? d : ".", name);
        struct stat st;
        if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0)
            return 0;
        d += n + (end != NULL);
    }
    snprintf(path, len, "%s", name);
    return -1;
}

#define EXPLAIN_WIDTH 88
#define EXPLAIN_NAMES 48 /* then "... and N more" */

/* r->missing's "FILE\tNAME" records, grouped by FILE in the order the
 * loader named them, the names wrapped to the terminal. */
static void print_by_file(FILE *out, const omp_entries_report *r)
{
    unsigned shown = 0, total = r->missing_entries + r->missing_libraries;
    for (const char *rec = r->missing; *rec != '\0' && shown < EXPLAIN_NAMES; rec = strchr(rec, '\n') + 1) {
        size_t file_len = strcspn(rec, "\t");
        bool first_of_file = true;
        for (const char *prev = r->missing; prev < rec; prev = strchr(prev, '\n') + 1)
            if (strncmp(prev, rec, file_len + 1) == 0)
                first_of_file = false;
        if (!first_of_file)
            continue;
        fprintf(out, "  %.*s:\n", (int)file_len, rec);
        size_t col = 0;
        for (const char *x = rec; *x != '\0' && shown < EXPLAIN_NAMES; x = strchr(x, '\n') + 1) {
            if (strncmp(x, rec, file_len + 1) != 0)
                continue;
            const char *name = x + file_len + 1;
            int n = (int)strcspn(name, "\n");
            if (col > 0 && col + 2 + (size_t)n > EXPLAIN_WIDTH) {
                fputs(",\n", out);
                col = 0;
            }
            col += (size_t)fprintf(out, "%s%.*s", col ? ", " : "    ", n, name);
            shown++;
        }
        fputc('\n', out);
    }
    if (shown < total || r->cut_short)
        fprintf(out, "    ... and %u more\n", total - shown);
}

void omp_entries_explain(FILE *out, const char *prog, const char *program, const char *runtime,
                         const omp_entries_report *r)
{
    if (r->status == OMP_ENTRIES_STATIC) {
        fprintf(out, "%s: %s is statically linked: no OpenMP runtime can be put under it\n", prog, program);
        return;
    }
    if (r->status != OMP_ENTRIES_MISSING)
        return;
    if (r->missing_entries > 0)
        fprintf(out, "%s: %s needs %u OpenMP entry point%s that %s does not define:\n", prog, program,
                r->missing_entries, r->missing_entries == 1 ? "" : "s", runtime);
    else
        fprintf(out, "%s: %s needs %u librar%s the loader cannot find:\n", prog, program, r->missing_libraries,
                r->missing_libraries == 1 ? "y" : "ies");
    print_by_file(out, r);
    if (r->other_symbols > 0)
        fprintf(out, "%s: (and %u other symbol%s no library defines, which would stop it on any runtime)\n", prog,
                r->other_symbols, r->other_symbols == 1 ? "" : "s");
}
