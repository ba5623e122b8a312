/* The muster command's entry point; the command itself is muster.c. */
#include "muster_main.h"

int main(int argc, char **argv)
{
    return muster_main(argc, argv);
}
