/* The benchmark programs' result lines and how the harness reads them
 * (bench/omp/record.c, tools/bench/bench_child.c): the JSON records are
 * found among other output, and a program's --json lines carry the same
 * fields, in the same order, as its words.  Given the programs' paths
 * (argv[1] syncbench, argv[2] taskbench), it runs them too. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "bench_child.h"
#include "check.h"
#include "record.h"

static bool same(const char *a, const char *b)
{
    return a != NULL && strcmp(a, b) == 0;
}

/* A record written to a memory buffer, as words or JSON. */
static void write_sample(bool json, char *buf, size_t len)
{
    FILE *out = fmemopen(buf, len, "w");
    CHECK(out != NULL);
    record r = record_begin(out, json, "# prog");
    record_string(&r, "workload", "fib");
    record_uint(&r, "tasks", 18446744073709551615ull);
    record_number(&r, "ms", 12.5);
    record_number(&r, "bad", NAN);
    record_string(&r, "message", "a \"quoted\"\tword");
    record_end(&r);
    fclose(out);
}

static void test_writer(void)
{
    char text[256], json[256];
    write_sample(false, text, sizeof text);
    CHECK(strcmp(text, "# prog workload=fib tasks=18446744073709551615 ms=12.5 bad=nan message=a \"quoted\"\tword\n") == 0,
          "words: %s", text);
    write_sample(true, json, sizeof json);
    CHECK(strcmp(json, "{\"workload\":\"fib\",\"tasks\":18446744073709551615,\"ms\":12.5,\"bad\":null,"
                       "\"message\":\"a \\\"quoted\\\"\\tword\"}\n") == 0,
          "JSON: %s", json);
    json_value v;
    CHECK(bench_find_record(json, "workload", "fib", &v) == 0, "the writer's line reads back");
    CHECK(same(bench_record_string(&v, "message"), "a \"quoted\"\tword"), "escapes undone");
    CHECK(bench_record_number(&v, "ms") == 12.5 && isnan(bench_record_number(&v, "bad")), "numbers, null as NaN");
    muster_json_free(&v);
}

static void test_reader(void)
{
    const char *out = "libgomp: a warning on stdout\n"
                      "{\"runtime\":\"/lib/libgomp.so.1\",\"threads\":2}\n"
                      "{not json at all\n"
                      "{\"construct\":\"SINGLE\",\"status\":\"ok\",\"mean_us\":0.5}\n"
                      "{\"construct\":\"BARRIER\",\"status\":\"error\",\"message\":\"wrong count\"}";
    json_value v;
    CHECK(bench_find_record(out, "runtime", NULL, &v) == 0, "the header, past a line that is not JSON");
    CHECK(same(bench_record_string(&v, "runtime"), "/lib/libgomp.so.1"));
    CHECK(bench_record_string(&v, "threads") == NULL, "a number is not a string");
    CHECK(bench_record_number(&v, "threads") == 2);
    muster_json_free(&v);
    CHECK(bench_find_record(out, "construct", "BARRIER", &v) == 0, "the last line, without a newline");
    CHECK(same(bench_record_string(&v, "message"), "wrong count"), "the BARRIER record, not the SINGLE one");
    CHECK(isnan(bench_record_number(&v, "mean_us")), "absent: NaN");
    muster_json_free(&v);
    CHECK(bench_find_record(out, "construct", "ATOMIC", &v) == -1 && v.type == JSON_NULL, "no such record");
    CHECK(bench_find_record("", "runtime", NULL, &v) == -1, "no output at all");
}

/* The field names of a line, in order, as "a,b,c": of words ("k=v k=v",
 * after an optional "# prog" comment) or of a JSON object. */
static void field_names(const char *line, char *names, size_t len)
{
    names[0] = '\0';
    if (line[0] == '{') {
        json_value v;
        char err[128];
        CHECK(muster_json_parse(line, strcspn(line, "\n"), &v, err, sizeof err) == 0 && v.type == JSON_OBJECT,
              "not a JSON object (%s): %s", err, line);
        for (size_t i = 0; i < v.u.object.count; i++)
            snprintf(names + strlen(names), len - strlen(names), "%s%s", i ? "," : "", v.u.object.members[i].key);
        muster_json_free(&v);
        return;
    }
    if (line[0] == '#')
        line = strchr(line + 2, ' ') + 1;
    for (const char *w = line; *w && *w != '\n';) {
        size_t key = strcspn(w, "=");
        snprintf(names + strlen(names), len - strlen(names), "%s%.*s", names[0] ? "," : "", (int)key, w);
        if (strncmp(w, "message=", 8) == 0)
            break; /* runs to the line's end */
        w += strcspn(w, " \n");
        while (*w == ' ')
            w++;
    }
}

/* Runs `command` twice, with and without --json: the same number of lines,
 * each with the same field names; every JSON line parses. */
static void test_program(const char *command, const char *expect_in_result)
{
    char cmd[1024], words[4096], json[4096];
    snprintf(cmd, sizeof cmd, "%s 2>/dev/null", command);
    FILE *p = popen(cmd, "r");
    size_t n = fread(words, 1, sizeof words - 1, p);
    words[n] = '\0';
    CHECK(pclose(p) == 0, "%s failed: %s", command, words);
    snprintf(cmd, sizeof cmd, "%s --json 2>/dev/null", command);
    p = popen(cmd, "r");
    n = fread(json, 1, sizeof json - 1, p);
    json[n] = '\0';
    CHECK(pclose(p) == 0, "%s --json failed: %s", command, json);
    const char *w = words, *j = json;
    int lines = 0;
    while (*w && *j) {
        char wn[512], jn[512];
        field_names(w, wn, sizeof wn);
        field_names(j, jn, sizeof jn);
        CHECK(strcmp(wn, jn) == 0, "%s: line %d: words have %s, JSON %s", command, lines + 1, wn, jn);
        w += strcspn(w, "\n") + (w[strcspn(w, "\n")] != '\0');
        j += strcspn(j, "\n") + (j[strcspn(j, "\n")] != '\0');
        lines++;
    }
    CHECK(*w == '\0' && *j == '\0' && lines == 2, "%s: %d lines each, then %s / %s", command, lines, w, j);
    json_value v;
    CHECK(bench_find_record(json, "status", "ok", &v) == 0, "%s --json: no ok result in %s", command, json);
    CHECK(bench_record_number(&v, expect_in_result) > 0, "%s: %s", command, expect_in_result);
    muster_json_free(&v);
}

int main(int argc, char **argv)
{
    test_writer();
    test_reader();
    if (argc == 3) {
        char command[768];
        snprintf(command, sizeof command, "OMP_NUM_THREADS=3 %s --constructs barrier --samples 2 --target-ms 0.2",
                 argv[1]);
        test_program(command, "mean_us");
        snprintf(command, sizeof command, "%s --workload fib --threads 3 --scale 0.01", argv[2]);
        test_program(command, "ms");
    }
    printf("bench records: writer, reader%s\n", argc == 3 ? ", syncbench and taskbench" : "");
    return 0;
}
