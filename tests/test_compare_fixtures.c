/* `muster compare`'s agreement rule (tools/compare/agreement.c) on real
 * programs' outputs kept as fixtures (tests/compare_fixtures/: each
 * directory one program's stdout, RUNTIME.ROUND.txt, 2 rounds under
 * libgomp, libomp and muster).  For each program:
 *   - the outputs agree, with two rounds and with one, but for the lines
 *     its differs.txt lists (line number, then why: a real difference
 *     between the runtimes, which the rule must report, and nothing else);
 *   - a digit changed in an answer of one run (a line that is the same in
 *     every run and names no time or rate) is caught;
 *   - a letter changed in a verdict beside the numbers is caught too.
 * Usage: test_compare_fixtures DIR */
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agreement.h"
#include "check.h"

#define MAX_TEXT (16 * 1024)

static const char *const runtimes[] = {"libgomp", "libomp", "muster"};
enum { RUNTIMES = 3, ROUNDS = 2 };

/* outputs[k * ROUNDS + r]; false when a runtime's files are missing. */
static int load(const char *dir, char *outputs[RUNTIMES * ROUNDS], const char *names[RUNTIMES])
{
    int found = 0;
    for (int k = 0; k < RUNTIMES; k++) {
        char *runs[ROUNDS];
        int have = 0;
        for (int r = 0; r < ROUNDS; r++) {
            char path[4200];
            snprintf(path, sizeof path, "%.4000s/%s.%d.txt", dir, runtimes[k], r + 1);
            FILE *f = fopen(path, "r");
            runs[r] = NULL;
            if (f == NULL)
                continue;
            runs[r] = calloc(1, MAX_TEXT + 1);
            CHECK(runs[r] != NULL, "memory");
            size_t n = fread(runs[r], 1, MAX_TEXT, f);
            runs[r][n] = '\0';
            fclose(f);
            have++;
        }
        if (have != ROUNDS) {
            for (int r = 0; r < ROUNDS; r++)
                free(runs[r]);
            continue;
        }
        for (int r = 0; r < ROUNDS; r++)
            outputs[found * ROUNDS + r] = runs[r];
        names[found++] = runtimes[k];
    }
    return found;
}

/* The first line (its start in text) that is the same in every run, holds
 * `want` (a digit or a letter) and names no time or rate; NULL if none. */
static char *an_answer(char *const *outputs, int n, int (*want)(int))
{
    for (char *line = outputs[0]; *line;) {
        char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        bool everywhere = true;
        for (int j = 1; j < n && everywhere; j++) {
            char *at = outputs[j] + (line - outputs[0]);
            everywhere = (size_t)(line - outputs[0]) + len <= strlen(outputs[j]) && memcmp(at, line, len) == 0;
        }
        bool has = false;
        for (size_t i = 0; i < len && !has; i++)
            has = want((unsigned char)line[i]) != 0;
        if (everywhere && has && !line_names_measure(line, len))
            return line;
        if (end == NULL)
            break;
        line = end + 1;
    }
    return NULL;
}

/* Changes the first `want` character of the line at `line` (in run j). */
static void change(char *line, int (*want)(int))
{
    for (; *line && *line != '\n'; line++)
        if (want((unsigned char)*line)) {
            *line = isdigit((unsigned char)*line) ? (*line == '9' ? '0' : (char)(*line + 1))
                                                  : (*line == 'Z' || *line == 'z' ? 'A' : (char)(*line + 1));
            return;
        }
}

static int is_upper_letter(int c)
{
    return isupper(c);
}

/* differs.txt (differs.1.txt with one round, else the same): the lines,
 * numbered from 1, that really differ, each with why; 0 ends the list. */
static void expected_differences(const char *dir, int rounds, size_t *lines, size_t max)
{
    char path[4200];
    snprintf(path, sizeof path, "%.4000s/differs.1.txt", dir);
    FILE *f = rounds == 1 ? fopen(path, "r") : NULL;
    snprintf(path, sizeof path, "%.4000s/differs.txt", dir);
    if (f == NULL)
        f = fopen(path, "r");
    size_t n = 0;
    char text[512];
    while (f != NULL && n + 1 < max && fgets(text, sizeof text, f) != NULL)
        if (atoi(text) > 0)
            lines[n++] = (size_t)atoi(text);
    lines[n] = 0;
    if (f != NULL)
        fclose(f);
}

static void check_program(const char *dir, const char *program)
{
    char *outputs[RUNTIMES * ROUNDS];
    const char *names[RUNTIMES];
    int k = load(dir, outputs, names);
    CHECK(k >= 2, "%s: fixtures of at least two runtimes (%d found)", program, k);
    int n = k * ROUNDS;
    char diff[1024];
    size_t expected[9], expected_once[9];
    expected_differences(dir, ROUNDS, expected, sizeof expected / sizeof expected[0]);
    expected_differences(dir, 1, expected_once, sizeof expected_once / sizeof expected_once[0]);
    size_t nexpected = 0, nexpected_once = 0;
    while (expected[nexpected] != 0)
        nexpected++;
    while (expected_once[nexpected_once] != 0)
        nexpected_once++;
    agreement a = compare_outputs((const char *const *)outputs, names, (size_t)k, ROUNDS, diff, sizeof diff);
    CHECK(a.differ == nexpected, "%s: %zu lines disagree, %zu expected (differs.txt); the first, %s", program,
          a.differ, nexpected, diff);
    for (size_t i = 0; i < nexpected; i++)
        CHECK(a.lines[i] == expected[i], "%s: line %zu disagrees where differs.txt names line %zu", program,
              a.lines[i], expected[i]);
    /* One round: the first of each runtime's. */
    const char *once[RUNTIMES];
    for (int j = 0; j < k; j++)
        once[j] = outputs[j * ROUNDS];
    agreement one = compare_outputs(once, names, (size_t)k, 1, diff, sizeof diff);
    CHECK(one.differ == nexpected_once, "%s: with one round %zu lines disagree, %zu expected; the first, %s",
          program, one.differ, nexpected_once, diff);
    for (size_t i = 0; i < nexpected_once; i++)
        CHECK(one.lines[i] == expected_once[i], "%s, one round: line %zu disagrees where line %zu is expected",
              program, one.lines[i], expected_once[i]);
    printf("%-16s %zu lines compared, %zu measurements, %zu ignored; one round: %zu compared, %zu measurements\n",
           program, a.compared, a.measured, a.ignored, one.compared, one.measured);
    /* A wrong answer in muster's first run (the last runtime loaded). */
    static int (*const kinds[])(int) = {isdigit, is_upper_letter};
    static const char *const kind_names[] = {"digit", "letter"};
    for (int w = 0; w < 2; w++) {
        char *line = an_answer(outputs, n, kinds[w]);
        if (line == NULL) {
            printf("  (no answer line with a %s)\n", kind_names[w]);
            continue;
        }
        size_t offset = (size_t)(line - outputs[0]);
        char *victim = outputs[(k - 1) * ROUNDS];
        char *copy = strdup(victim);
        CHECK(copy != NULL, "memory");
        change(victim + offset, kinds[w]);
        agreement bad = compare_outputs((const char *const *)outputs, names, (size_t)k, ROUNDS, diff, sizeof diff);
        CHECK(bad.differ == nexpected + 1, "%s: a %s changed in an answer of one run is not caught (line \"%.60s\")", program,
              kind_names[w], line);
        strcpy(victim, copy);
        free(copy);
    }
    for (int j = 0; j < n; j++)
        free(outputs[j]);
}

int main(int argc, char **argv)
{
    CHECK(argc == 2, "usage: test_compare_fixtures DIR");
    DIR *d = opendir(argv[1]);
    CHECK(d != NULL, "cannot open %s", argv[1]);
    int programs = 0;
    struct dirent *e;
    char *names[64];
    while ((e = readdir(d)) != NULL && programs < 64)
        if (e->d_name[0] != '.' && (e->d_type == DT_DIR || e->d_type == DT_UNKNOWN) && strchr(e->d_name, '.') == NULL)
            names[programs++] = strdup(e->d_name);
    closedir(d);
    CHECK(programs >= 8, "%d programs' fixtures in %s; the rule is held against a dozen", programs, argv[1]);
    for (int i = 0; i < programs; i++) {
        char dir[4200];
        snprintf(dir, sizeof dir, "%.3000s/%.1000s", argv[1], names[i]);
        check_program(dir, names[i]);
        free(names[i]);
    }
    printf("test_compare_fixtures: %d programs agree, and their changed answers are caught\n", programs);
    return 0;
}
