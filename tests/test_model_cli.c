/* `muster model` from the outside: bad input gets a clear message and exit
 * status 2 (usage) or 1 (a file it cannot use); good input prints what a
 * user looks for.  The cases are the table below.
 *
 *   test_model_cli DATA_DIR MUSTER...   (MUSTER: the command, with the
 *                                        emulator in front when cross-built;
 *                                        DATA_DIR: tests/data) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "env_driver.h"

typedef struct cli_case {
    const char *name;
    const char *args[10]; /* after MUSTER; '@' stands for DATA_DIR */
    int exit_status;
    const char *output;   /* a pattern (env_glob) the output, stdout then stderr, must match */
} cli_case;

static const cli_case cases[] = {
    {"unknown_preset", {"model", "cost", "--preset", "cray-1"}, 2, "*unknown preset 'cray-1'*"},
    {"no_machine", {"model", "simulate"}, 2, "*choose one machine*"},
    {"bad_machine_file", {"model", "simulate", "--machine", "@/negative_latency.json"}, 1,
     "*negative_latency.json: latency_ns[0][1]: negative*"},
    {"missing_machine_file", {"model", "cost", "--machine", "no-such-file.json"}, 1, "*no-such-file.json*"},
    {"too_many_threads", {"model", "simulate", "--preset", "thunderx2", "--threads", "65"}, 2,
     "*65 participants do not fit*"},
    {"replicate_too_fast", {"model", "simulate", "--preset", "kunpeng920", "--replicate", "2:5", "--threads", "2"}, 2,
     "*below the outermost layer*"},
    {"bad_algorithm", {"model", "simulate", "--preset", "kunpeng920", "--algorithms", "bogus"}, 2,
     "*unknown algorithm 'bogus'*"},
    {"cost_table", {"model", "cost", "--preset", "kunpeng920", "--threads", "64"}, 0,
     "*eq. 5 cluster-aware*model's choice: fan-in #*"},
    {"simulate_replicated",
     {"model", "simulate", "--preset", "thunderx2", "--replicate", "8", "--threads", "2,64,512", "--algorithms",
      "tuned,dissemination"},
     0, "*P = *512*tuned*"},
    {"presets", {"model", "presets"}, 0, "*phytium2000*thunderx2*kunpeng920*"},
};

static void check_case(const cli_case *c, const char *data_dir, char **muster, int muster_words)
{
    char storage[10][1024];
    char *argv[40];
    int argc = 0;
    for (int i = 0; i < muster_words && argc < 28; i++)
        argv[argc++] = muster[i];
    for (int i = 0; i < 10 && c->args[i] != NULL; i++)
        argv[argc++] = (char *)env_expand(storage[i], sizeof storage[i], c->args[i], data_dir);
    argv[argc] = NULL;
    const char *no_settings[1] = {NULL};
    env_child_result r = env_run(argv, no_settings);
    CHECK(WIFEXITED(r.status) && WEXITSTATUS(r.status) == c->exit_status, "%s: exit status %d, expected %d\n%s%s",
          c->name, WIFEXITED(r.status) ? WEXITSTATUS(r.status) : -1, c->exit_status, r.out, r.err);
    size_t out_len = strlen(r.out), err_len = strlen(r.err);
    char *both = malloc(out_len + err_len + 1);
    CHECK(both != NULL);
    memcpy(both, r.out, out_len);
    memcpy(both + out_len, r.err, err_len + 1);
    CHECK(env_glob(c->output, both), "%s: the output does not match '%s'\n%s", c->name, c->output, both);
    /* Errors go to stderr, with the command's name; results to stdout. */
    if (c->exit_status != 0)
        CHECK(strstr(r.err, "muster") != NULL && r.err[0] != '\0', "%s: no message on stderr", c->name);
    printf("%-22s ok (exit %d)\n", c->name, c->exit_status);
    free(both);
    env_child_free(&r);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s DATA_DIR MUSTER...\n", argv[0]);
        return 2;
    }
    size_t n = sizeof cases / sizeof cases[0];
    for (size_t i = 0; i < n; i++)
        check_case(&cases[i], argv[1], argv + 2, argc - 2);
    printf("test_model_cli: %zu cases ok\n", n);
    return 0;
}
