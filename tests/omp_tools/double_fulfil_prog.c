/* Fulfils one detach event twice, from inside the detached task's body (so
 * the task has not completed and its event still exists): the runtime must
 * stop the program with a message naming the mistake, not miscount the
 * task.  In a team of two or more the event belongs to a deferred task
 * record; in a team of one, to a task run at once. */
#include <omp.h>
#include <stdio.h>

int main(void)
{
#pragma omp parallel
#pragma omp single
    {
        omp_event_handle_t event;
#pragma omp task detach(event)
        {
            omp_fulfill_event(event);
            omp_fulfill_event(event);
        }
    }
    printf("both fulfilments returned\n");
    return 0;
}
