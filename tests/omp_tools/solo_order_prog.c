/* The order a team of one runs its tasks in, one line per part, so that a
 * test can check that libmuster-omp keeps the order of the runtime the
 * program was built for.  libgomp queues a lone thread's tasks and runs
 * them newest first; libomp runs them at once, in creation order.  A
 * branch-and-bound search finds its bound, and so its work, in that order
 * (the BOTS knapsack at one thread: 0.02 s on libgomp, 4.7 s when muster
 * ran its tasks at once).
 *
 * Part 1, a loop: the implicit task makes 8 tasks, then waits for them.
 * Part 2, a recursion: a task makes a tree four levels deep, two children
 * per node, each node noting its label (r, then a 0 or 1 per level) as it
 * starts and waiting for its children.
 * Part 3, the same recursion in a team of one nested in a team of two (the
 * inner region is inactive: one active level).
 * Part 4, if(0) and final: an undeferred task and a final task's children
 * run at once in every runtime, before the tasks queued ahead of them.
 * Part 5, the region's end: the implicit task makes three tasks and waits
 * for none; each makes two and waits for none.  libgomp runs what a
 * barrier finds oldest first (its team's queue), so breadth first;
 * libomp depth first, at once.
 *
 * Prints "loop: ...", "recursion: ...", "nested: ...", "undeferred: ...",
 * "barrier: ...". */
#include <omp.h>
#include <stdio.h>
#include <string.h>

#define LOG_BYTES 512

static char log_text[LOG_BYTES];

/* Team of one: only one thread writes at a time. */
static void note(const char *label)
{
    size_t used = strlen(log_text);
    snprintf(log_text + used, sizeof log_text - used, "%s%s", used > 0 ? " " : "", label);
}

static void node(const char *label, int levels)
{
    note(label);
    if (levels == 0)
        return;
    for (int k = 0; k < 2; k++) {
        char child[16];
        snprintf(child, sizeof child, "%s%d", label, k);
#pragma omp task firstprivate(child, levels)
        node(child, levels - 1);
    }
#pragma omp taskwait
}

static void print_part(const char *name)
{
    printf("%s: %s\n", name, log_text);
    log_text[0] = '\0';
}

static void loop_part(void)
{
#pragma omp parallel num_threads(1)
    {
        for (int i = 0; i < 8; i++) {
            char label[4];
            snprintf(label, sizeof label, "%d", i);
#pragma omp task firstprivate(label)
            note(label);
        }
#pragma omp taskwait
    }
    print_part("loop");
}

static void recursion_in_team_of_one(void)
{
#pragma omp parallel num_threads(1)
#pragma omp single
    {
#pragma omp task
        node("r", 3);
    }
}

static void undeferred_part(void)
{
#pragma omp parallel num_threads(1)
    {
#pragma omp task
        note("a");
#pragma omp task if (0)
        note("b");
#pragma omp task final(1)
        {
            note("c");
#pragma omp task
            note("c0");
#pragma omp task
            note("c1");
        }
#pragma omp task
        note("d");
#pragma omp taskwait
    }
    print_part("undeferred");
}

static void note_and_spawn(const char *label)
{
    note(label);
    for (int k = 0; k < 2; k++) {
        char child[16];
        snprintf(child, sizeof child, "%s%d", label, k);
#pragma omp task firstprivate(child)
        note(child);
    }
}

static void barrier_part(void)
{
#pragma omp parallel num_threads(1)
    {
        static const char *const names[] = {"A", "B", "C"};
        for (int i = 0; i < 3; i++) {
            const char *name = names[i];
#pragma omp task firstprivate(name)
            note_and_spawn(name);
        }
    }
    print_part("barrier");
}

int main(void)
{
    loop_part();
    recursion_in_team_of_one();
    print_part("recursion");
    omp_set_max_active_levels(1);
#pragma omp parallel num_threads(2)
    {
#pragma omp master
        recursion_in_team_of_one();
    }
    print_part("nested");
    undeferred_part();
    barrier_part();
    return 0;
}
