/* A clang -fopenmp program that references an entry point LLVM's libomp
 * has and libmuster-omp does not (one of the 340 __kmpc_atomic_* that only
 * Intel's compilers emit), called only when asked.  Under `muster run` it
 * must stop at load, naming the entry point, before main runs. */
#include <stdio.h>

typedef struct ident ident_t;
void __kmpc_atomic_fixed4_add(ident_t *loc, int gtid, int *lhs, int rhs);

int main(int argc, char **argv)
{
    (void)argv;
    printf("main ran\n");
    fflush(stdout);
    int x = 0;
    if (argc > 5)
        __kmpc_atomic_fixed4_add(NULL, 0, &x, 1);
    return x;
}
