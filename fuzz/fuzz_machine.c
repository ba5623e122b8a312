/* libFuzzer target: machine files (muster probe --output, MUSTER_MACHINE,
 * muster model --machine): the JSON parser and the machine reader.  A file
 * that reads must pass the validation the rest of muster relies on. */
#include <stdint.h>
#include <stdlib.h>

#include "machine/machine.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    muster_machine m;
    char err[256];
    if (muster_machine_parse((const char *)data, size, &m, err, sizeof err) == 0) {
        char why[256];
        if (muster_machine_validate(&m, why, sizeof why) != 0)
            abort(); /* read, but not a machine muster can use */
        muster_machine_free(&m);
    } else if (err[0] == '\0') {
        abort(); /* a refusal must say why */
    }
    return 0;
}
