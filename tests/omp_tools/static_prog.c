/* A statically linked program (gcc -static): no runtime can be put under
 * it, so `muster run` must refuse it, saying so, before it starts. */
#include <stdio.h>

int main(void)
{
    printf("main ran\n");
    return 0;
}
