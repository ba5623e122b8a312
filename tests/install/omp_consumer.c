/* An OpenMP program linked with muster::omp (or pkg-config muster-omp): it
 * runs on libmuster-omp, not on the compiler's runtime. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <omp.h>
#include <stdio.h>
#include <string.h>

int main(void)
{
    long sum = 0;
#pragma omp parallel for reduction(+ : sum) num_threads(3)
    for (int i = 1; i <= 1000; i++)
        sum += i;
    int team = 0;
#pragma omp parallel num_threads(3)
#pragma omp single
    team = omp_get_num_threads();
    Dl_info info;
    void *entry = dlsym(RTLD_DEFAULT, "GOMP_parallel");
    const char *from = entry != NULL && dladdr(entry, &info) != 0 ? info.dli_fname : "(not found)";
    printf("omp_consumer: sum %ld, team %d, GOMP_parallel from %s\n", sum, team, from);
    return sum == 500500 && team == 3 && strstr(from, "libmuster-omp") != NULL ? 0 : 1;
}
