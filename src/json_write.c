/* JSON output for every part of muster that writes it (the topology's JSON,
 * machine files, the command's reports): one string escaper and one number
 * format.  At the bottom of the layers, beside the errors. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "json_write.h"

void muster_json_write_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(out, "\\%c", c);
        else if (c == '\n')
            fputs("\\n", out);
        else if (c == '\t')
            fputs("\\t", out);
        else if (c < 0x20)
            fprintf(out, "\\u%04x", c);
        else
            fputc(c, out);
    }
    fputc('"', out);
}

void muster_json_write_number(FILE *out, double v)
{
    if (!isfinite(v)) {
        fputs("null", out);
        return;
    }
    char text[40];
    /* 17 significant digits always round-trip a double; fewer usually do and
     * read better in a diff. */
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(text, sizeof text, "%.*g", digits, v);
        if (strtod(text, NULL) == v)
            break;
    }
    fputs(text, out);
}
