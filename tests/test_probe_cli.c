/* `muster probe` from the outside, one case per ctest test:
 *
 *   test_probe_cli CASE MUSTER...      (MUSTER: the command, with the
 *                                       emulator in front when cross-built)
 *
 *  json          --json --repetitions 3 --round-trips 200: exit 0, and
 *                stdout loads as a machine file of every allowed CPU
 *  output        --output FILE writes a loadable file (no FILE.tmp left),
 *                and the table still goes to stdout
 *  output_bad    --output into a missing directory: exit 1 before measuring
 *  single_cpu    with a one-CPU affinity mask: a 1x1 machine, no layers,
 *                N_c 1, and --cpus naming the next CPU is refused
 *  bad_options   --cpus 999, --repetitions 0, --round-trips 0, --cpus 1-0,
 *                an unknown option: exit 2 and the option named on stderr
 *  png_missing   MUSTER_PYTHON_DIR without muster_report: exit 1 at once
 *  png_fake      a stand-in muster_report that copies its input: muster
 *                passes "heatmap TMP.json FILE", TMP.json is a machine file
 *                and is removed afterwards, the package's stdout chatter
 *                stays out of --json's stdout
 *  png_fails     the heat-map command fails: exit 1, FILE named
 *  help          --help: exit 0
 * Exit 77 (skipped) when python3 is needed and missing. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "machine/machine.h"

#include "check.h"

#define SKIP 77

static char **muster; /* the command prefix */
static int muster_words;
static char dir[256];

typedef struct result {
    int status;
    char out_path[300];
    char *out, *err;
} result;

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    CHECK(f != NULL, "%s: %s", path, strerror(errno));
    char *text = NULL;
    size_t size = 0;
    FILE *mem = open_memstream(&text, &size);
    int c;
    while ((c = fgetc(f)) != EOF)
        fputc(c, mem);
    fclose(f);
    fclose(mem);
    return text;
}

/* Runs `muster probe ARGS...` (NULL-terminated), pinned to pin_cpu unless it
 * is -1, with env "NAME=VALUE" set unless NULL. */
static result run(const char *tag, int pin_cpu, const char *env, const char *const *args)
{
    result r = {0};
    char err_path[300];
    snprintf(r.out_path, sizeof r.out_path, "%s/%s.out", dir, tag);
    snprintf(err_path, sizeof err_path, "%s/%s.err", dir, tag);
    const char *argv[64];
    int n = 0;
    for (int i = 0; i < muster_words; i++)
        argv[n++] = muster[i];
    argv[n++] = "probe";
    for (; *args != NULL && n < 63; args++)
        argv[n++] = *args;
    argv[n] = NULL;
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        int out = open(r.out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600), err = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (out < 0 || err < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0)
            _exit(126);
        if (pin_cpu >= 0) {
            cpu_set_t set;
            CPU_ZERO(&set);
            CPU_SET(pin_cpu, &set);
            if (sched_setaffinity(0, sizeof set, &set) != 0)
                _exit(126);
        }
        if (env != NULL)
            putenv((char *)env);
        execvp(argv[0], (char *const *)argv);
        _exit(127);
    }
    int status;
    CHECK(waitpid(pid, &status, 0) == pid);
    r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    r.out = slurp(r.out_path);
    r.err = slurp(err_path);
    fprintf(stderr, "[%s] exit %d\n--- stdout\n%s--- stderr\n%s---\n", tag, r.status, r.out, r.err);
    return r;
}

static void done(result *r)
{
    free(r->out);
    free(r->err);
}

static void load(const char *path, muster_machine *m)
{
    char err[512];
    CHECK(muster_machine_load(path, m, err, sizeof err) == 0, "%s", err);
}

static unsigned allowed_cpus(int *first)
{
    cpu_set_t set;
    CHECK(sched_getaffinity(0, sizeof set, &set) == 0);
    for (*first = 0; !CPU_ISSET(*first, &set); (*first)++)
        ;
    return (unsigned)CPU_COUNT(&set);
}

static bool have_python(void) { return system("python3 -c pass >/dev/null 2>&1") == 0; }

/* ---- cases ---------------------------------------------------------------- */

static int case_json(void)
{
    int first;
    unsigned n = allowed_cpus(&first);
    result r = run("json", -1, NULL, (const char *[]){"--json", "--repetitions", "3", "--round-trips", "200", NULL});
    CHECK(r.status == 0);
    muster_machine m;
    load(r.out_path, &m);
    CHECK(m.cpus == n && m.cpu_ids[0] == first && m.probe_repetitions == 3 && m.probe_round_trips == 200);
    CHECK(m.round_trip_median_ns != NULL && m.epsilon_ns > 0);
    muster_machine_free(&m);
    done(&r);
    return 0;
}

static int case_output(void)
{
    char file[300], tmp[310];
    snprintf(file, sizeof file, "%s/machine.json", dir);
    snprintf(tmp, sizeof tmp, "%s.tmp", file);
    result r = run("output", -1, NULL, (const char *[]){"--output", file, "--repetitions", "3", "--round-trips", "200", NULL});
    CHECK(r.status == 0);
    CHECK(strstr(r.out, "logical cluster size N_c:") != NULL && strstr(r.out, "epsilon") != NULL);
    CHECK(access(tmp, F_OK) != 0, "%s left behind", tmp);
    muster_machine m;
    load(file, &m);
    CHECK(m.cpus >= 1 && m.probe_round_trips == (m.cpus > 1 ? 200u : 0u));
    muster_machine_free(&m);
    done(&r);
    return 0;
}

static int case_output_bad(void)
{
    char file[300];
    snprintf(file, sizeof file, "%s/no/such/dir/machine.json", dir);
    result r = run("output_bad", -1, NULL, (const char *[]){"--output", file, NULL});
    CHECK(r.status == 1);
    CHECK(strstr(r.err, "--output") != NULL && strstr(r.err, file) != NULL);
    CHECK(r.out[0] == '\0', "something was measured and printed before the output path was tried");
    done(&r);
    return 0;
}

static int case_single_cpu(void)
{
    int first;
    allowed_cpus(&first);
    result r = run("single_json", first, NULL, (const char *[]){"--json", "--repetitions", "3", NULL});
    CHECK(r.status == 0);
    muster_machine m;
    load(r.out_path, &m);
    CHECK(m.cpus == 1 && m.cpu_ids[0] == first && m.layer_count == 0 && m.cluster_size == 1);
    CHECK(m.latency_ns[0] == m.epsilon_ns && m.epsilon_ns > 0);
    muster_machine_free(&m);
    done(&r);

    r = run("single_table", first, NULL, (const char *[]){"--repetitions", "3", NULL});
    CHECK(r.status == 0 && strstr(r.out, "one CPU") != NULL && strstr(r.out, "N_c: 1") != NULL);
    done(&r);

    char other[16], mention[64];
    snprintf(other, sizeof other, "%d", first + 1);
    snprintf(mention, sizeof mention, "CPU %d is not in this process's affinity mask (%d)", first + 1, first);
    r = run("single_foreign", first, NULL, (const char *[]){"--cpus", other, NULL});
    CHECK(r.status == 2 && strstr(r.err, mention) != NULL);
    done(&r);
    return 0;
}

static void expect_usage_error(const char *tag, const char *const *args, const char *mention)
{
    result r = run(tag, -1, NULL, args);
    CHECK(r.status == 2, "%s: exit %d", tag, r.status);
    CHECK(strstr(r.err, mention) != NULL, "%s: stderr does not mention '%s'", tag, mention);
    CHECK(r.out[0] == '\0' && strchr(r.err, '\n') == strrchr(r.err, '\n'), "%s: more than one line", tag);
    done(&r);
}

static int case_bad_options(void)
{
    expect_usage_error("cpus_999", (const char *[]){"--cpus", "999", NULL}, "--cpus: CPU 999 is not in");
    expect_usage_error("cpus_range", (const char *[]){"--cpus", "0-3,998-999", NULL}, "--cpus: CPU ");
    expect_usage_error("cpus_backwards", (const char *[]){"--cpus", "1-0", NULL}, "--cpus: '1-0' runs backwards");
    expect_usage_error("cpus_word", (const char *[]){"--cpus=zero", NULL}, "--cpus: 'zero' is not a CPU number");
    expect_usage_error("cpus_empty", (const char *[]){"--cpus", "", NULL}, "--cpus: empty list");
    expect_usage_error("cpus_missing", (const char *[]){"--cpus", NULL}, "--cpus needs a value");
    expect_usage_error("reps_0", (const char *[]){"--repetitions", "0", NULL}, "--repetitions: '0'");
    expect_usage_error("reps_neg", (const char *[]){"--repetitions", "-3", NULL}, "--repetitions: '-3'");
    expect_usage_error("rt_0", (const char *[]){"--round-trips", "0", NULL}, "--round-trips: '0'");
    expect_usage_error("png_empty", (const char *[]){"--png", "", NULL}, "--png: empty file name");
    expect_usage_error("unknown", (const char *[]){"--fast", NULL}, "unknown option '--fast'");
    return 0;
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CHECK(f != NULL && fputs(text, f) >= 0 && fclose(f) == 0, "%s", path);
}

/* A stand-in for python/muster_report: __main__.py is `body`. */
static void fake_package(const char *root, const char *body)
{
    char path[400];
    snprintf(path, sizeof path, "%s/muster_report", root);
    CHECK(mkdir(root, 0700) == 0 && mkdir(path, 0700) == 0, "%s", strerror(errno));
    snprintf(path, sizeof path, "%s/muster_report/__init__.py", root);
    write_file(path, "");
    snprintf(path, sizeof path, "%s/muster_report/__main__.py", root);
    write_file(path, body);
}

static int case_png_missing(void)
{
    if (!have_python())
        return SKIP;
    char env[400], png[300];
    snprintf(env, sizeof env, "MUSTER_PYTHON_DIR=%s", dir); /* exists, holds no muster_report */
    snprintf(png, sizeof png, "%s/heat.png", dir);
    result r = run("png_missing", -1, env, (const char *[]){"--png", png, "--repetitions", "3", NULL});
    CHECK(r.status == 1);
    CHECK(strstr(r.err, "muster_report") && strstr(r.err, dir) && strstr(r.err, "MUSTER_PYTHON_DIR"));
    CHECK(r.out[0] == '\0' && access(png, F_OK) != 0);
    done(&r);
    return 0;
}

static int case_png_fake(void)
{
    if (!have_python())
        return SKIP;
    char root[300], env[400], png[300], from[310];
    snprintf(root, sizeof root, "%s/py", dir);
    fake_package(root, "import shutil, sys\n"
                       "print('chatter on stdout')\n"
                       "if sys.argv[1:2] != ['heatmap'] or len(sys.argv) != 4:\n"
                       "    sys.exit('fake muster_report: expected heatmap JSON PNG, got %r' % sys.argv[1:])\n"
                       "shutil.copyfile(sys.argv[2], sys.argv[3])\n"
                       "open(sys.argv[3] + '.from', 'w').write(sys.argv[2])\n");
    snprintf(env, sizeof env, "MUSTER_PYTHON_DIR=%s", root);
    snprintf(png, sizeof png, "%s/heat.png", dir);
    result r = run("png_fake", -1, env,
                   (const char *[]){"--png", png, "--json", "--repetitions", "3", "--round-trips", "200", NULL});
    CHECK(r.status == 0);
    muster_machine m;
    load(r.out_path, &m); /* stdout is the JSON alone, chatter or not */
    muster_machine_free(&m);
    load(png, &m); /* what the package was given: a machine file */
    muster_machine_free(&m);
    snprintf(from, sizeof from, "%s.from", png);
    char *tmp_json = slurp(from);
    CHECK(strstr(tmp_json, ".json") != NULL && access(tmp_json, F_OK) != 0, "%s was not removed", tmp_json);
    free(tmp_json);
    done(&r);
    return 0;
}

static int case_png_fails(void)
{
    if (!have_python())
        return SKIP;
    char root[300], env[400], png[300];
    snprintf(root, sizeof root, "%s/py", dir);
    fake_package(root, "import sys\nsys.exit('matplotlib is missing, say')\n");
    snprintf(env, sizeof env, "MUSTER_PYTHON_DIR=%s", root);
    snprintf(png, sizeof png, "%s/heat.png", dir);
    result r = run("png_fails", -1, env, (const char *[]){"--png", png, "--repetitions", "3", "--round-trips", "200", NULL});
    CHECK(r.status == 1);
    CHECK(strstr(r.err, "matplotlib is missing, say") && strstr(r.err, "heatmap failed") && strstr(r.err, png));
    CHECK(strstr(r.out, "N_c") != NULL); /* the measurement itself was still reported */
    done(&r);
    return 0;
}

static int case_help(void)
{
    result r = run("help", -1, NULL, (const char *[]){"--help", NULL});
    CHECK(r.status == 0 && strstr(r.out, "--cpus LIST") && strstr(r.out, "--png FILE"));
    done(&r);
    return 0;
}

static const struct {
    const char *name;
    int (*run)(void);
} cases[] = {
    {"json", case_json},          {"output", case_output},       {"output_bad", case_output_bad},
    {"single_cpu", case_single_cpu}, {"bad_options", case_bad_options}, {"png_missing", case_png_missing},
    {"png_fake", case_png_fake},  {"png_fails", case_png_fails}, {"help", case_help},
};

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: test_probe_cli CASE MUSTER...\n");
        return 2;
    }
    muster = argv + 2;
    muster_words = argc - 2;
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/test_probe_cli.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    CHECK(mkdtemp(dir) != NULL);
    int rc = -1;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (strcmp(argv[1], cases[i].name) == 0)
            rc = cases[i].run();
    CHECK(rc != -1, "unknown case '%s'", argv[1]);
    char command[300];
    snprintf(command, sizeof command, "rm -rf '%s'", dir);
    CHECK(system(command) == 0);
    if (rc == SKIP)
        printf("test_probe_cli %s: skipped (no python3)\n", argv[1]);
    else
        printf("test_probe_cli %s: ok\n", argv[1]);
    return rc;
}
