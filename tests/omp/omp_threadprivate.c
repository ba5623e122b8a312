/* threadprivate variables: each thread's own copy, initialised from the
 * original's initial value; values that persist from one region to the
 * next when the team size stays the same (dyn-var false); copyin from the
 * primary thread's copy; copyprivate of a threadprivate variable.  Built by
 * gcc and clang (thread-local storage) and by clang with
 * -fnoopenmp-use-tls, which goes through __kmpc_threadprivate_cached. */
#include "corpus.h"

static int counter = 7;
static struct {
    long a, b;
    char tag[24];
} record = {1, 2, "initial"};
#pragma omp threadprivate(counter, record)

int main(void)
{
    corpus_begin("omp_threadprivate");
    int T = corpus_threads();
    omp_set_dynamic(0);
    long wrong = 0;
    /* Every copy starts from the initial value. */
#pragma omp parallel reduction(+ : wrong)
    {
        wrong += counter != 7 || record.a != 1 || record.b != 2 || strcmp(record.tag, "initial") != 0;
        counter = 100 + omp_get_thread_num();
        record.a = omp_get_thread_num();
    }
    CHECK_EQ(wrong, 0, "threadprivate copies that did not start from the initial value");
    for (int round = 0; round < 20; round++) {
        /* Persistence: the same team size, the same copies. */
#pragma omp parallel reduction(+ : wrong)
        {
            int id = omp_get_thread_num();
            wrong += counter != 100 + id + round || record.a != id;
            counter++;
        }
        CHECK_EQ(wrong, 0, "round %d: threadprivate values that did not persist", round);
    }
    /* copyin: every copy takes the primary thread's value. */
    counter = 4242;
    snprintf(record.tag, sizeof record.tag, "primary");
#pragma omp parallel copyin(counter, record) reduction(+ : wrong)
    wrong += counter != 4242 || strcmp(record.tag, "primary") != 0;
    CHECK_EQ(wrong, 0, "copies that copyin did not reach");
    /* copyprivate of a threadprivate variable: the single's value everywhere. */
#pragma omp parallel reduction(+ : wrong)
    {
#pragma omp single copyprivate(counter)
        counter = 555;
        wrong += counter != 555;
    }
    CHECK_EQ(wrong, 0, "copies that copyprivate did not reach");
    /* The primary thread's copy is the one outside the regions. */
    CHECK_EQ(counter, 555, "the primary thread's copy after the regions");
    corpus_summary("threads=%d rounds=20 ok", T);
    return 0;
}
