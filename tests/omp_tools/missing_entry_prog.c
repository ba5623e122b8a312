/* A clang -fopenmp program that references an entry point LLVM's libomp
 * has and libmuster-omp does not (__kmpc_invoke_task_func, libomp's own
 * thread start, which no compiler emits: omp/exports lists it among the
 * names left out), called only when asked.  Under `muster run` it must
 * stop at load, naming the entry point, before main runs. */
#include <stdio.h>

int __kmpc_invoke_task_func(int gtid);

int main(int argc, char **argv)
{
    (void)argv;
    printf("main ran\n");
    fflush(stdout);
    return argc > 5 ? __kmpc_invoke_task_func(0) : 0;
}
