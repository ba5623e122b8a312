/* A branch-and-bound search must stay pruned whatever order the runtime
 * picks (issue #29): the same 0/1 knapsack searched in the two ways
 * programs write it, each pruned by a shared bound.
 *
 *   last:  each node makes two tasks, without the item and then with it
 *          (the promising branch last), waits for both, and raises the
 *          bound on return: as task suites write it for libgomp and libomp,
 *          which run the last task first near the root.  Run in creation
 *          order, it explores the hopeless branch first at every level.
 *   first: each node makes a task with the item (the promising branch) and
 *          goes on itself without it, raising the bound at every node: as
 *          a serial program is turned into tasks.  Run continuation first
 *          (both peers queue the task), it explores the hopeless branch
 *          first at every level.
 *
 * Both are counted in search nodes against the serial search in the
 * promising order (the fewest a good order visits).  EPISODES episodes of
 * each, with a random delay (0-200 us) in the first node so that who takes
 * which branch varies; every episode must find the best packing and visit
 * at most LIMIT times the serial count.  Before this fix the last
 * form visited 150-250 times the serial count on libmuster-omp at 2-5
 * threads, and the peers visit 25-235 times it in the first form; after it
 * 1.0-2.8 times, with one episode of 13.8 seen at 3 threads on 2 CPUs
 * while the machine was loaded (hence the margin).
 *
 * Prints one line per form and exits 0 when both hold, 1 otherwise. */
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define ITEMS 40
#define EPISODES 12
#define LIMIT 40
#define TASK_DEPTH 24 /* the first form's items decided by tasks */
#define NONE (-1L)

static long weight[ITEMS], value[ITEMS], capacity;
static _Atomic long best;
static _Atomic long nodes;

static void offer(long v)
{
    long b = atomic_load_explicit(&best, memory_order_relaxed); /* relaxed: a bound only prunes */
    while (v > b && !atomic_compare_exchange_weak_explicit(&best, &b, v, memory_order_relaxed, memory_order_relaxed))
        ;
}

static int hopeless(int i, long room, long v)
{
    double bound = (double)v + (double)room * (double)value[i] / (double)weight[i];
    return bound <= (double)atomic_load_explicit(&best, memory_order_relaxed); /* relaxed: as offer's */
}

static void count_node(void)
{
    atomic_fetch_add_explicit(&nodes, 1, memory_order_relaxed); /* relaxed: summed after the region */
}

static long search_last(int i, long room, long v)
{
    count_node();
    if (i == ITEMS)
        return v;
    if (hopeless(i, room, v))
        return NONE;
    long without = NONE, with = NONE;
#pragma omp task shared(without) firstprivate(i, room, v)
    without = search_last(i + 1, room, v);
    if (weight[i] <= room) {
#pragma omp task shared(with) firstprivate(i, room, v)
        with = search_last(i + 1, room - weight[i], v + value[i]);
    }
#pragma omp taskwait
    long b = with > without ? with : without;
    offer(b);
    return b;
}

static void search_first(int i, long room, long v)
{
    count_node();
    offer(v);
    if (i == ITEMS || hopeless(i, room, v))
        return;
    if (weight[i] <= room) {
        if (i < TASK_DEPTH) {
#pragma omp task firstprivate(i, room, v)
            search_first(i + 1, room - weight[i], v + value[i]);
        } else {
            search_first(i + 1, room - weight[i], v + value[i]);
        }
    }
    search_first(i + 1, room, v);
}

static void serial_first(int i, long room, long v)
{
    count_node();
    offer(v);
    if (i == ITEMS || hopeless(i, room, v))
        return;
    if (weight[i] <= room)
        serial_first(i + 1, room - weight[i], v + value[i]);
    serial_first(i + 1, room, v);
}

static int by_density(const void *a, const void *b)
{
    const long *x = a, *y = b; /* {weight, value} */
    double dx = (double)x[1] / (double)x[0], dy = (double)y[1] / (double)y[0];
    return dx < dy ? 1 : dx > dy ? -1 : 0;
}

static void make_items(void)
{
    long item[ITEMS][2];
    unsigned long seed = 2029;
    for (int i = 0; i < ITEMS; i++) {
        seed = seed * 6364136223846793005ul + 1442695040888963407ul;
        item[i][0] = 1000 + (long)((seed >> 33) % 9000); /* strongly correlated: the hard kind */
        item[i][1] = item[i][0] + 1000;
        capacity += item[i][0];
    }
    capacity /= 2;
    qsort(item, ITEMS, sizeof item[0], by_density);
    for (int i = 0; i < ITEMS; i++) {
        weight[i] = item[i][0];
        value[i] = item[i][1];
    }
}

static void delay_us(unsigned us)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do
        clock_gettime(CLOCK_MONOTONIC, &t);
    while ((t.tv_sec - t0.tv_sec) * 1000000L + (t.tv_nsec - t0.tv_nsec) / 1000 < (long)us);
}

/* Runs one form EPISODES times; true when every episode found `answer`
 * within LIMIT times `serial` nodes.  Prints the form's line. */
static int run_form(const char *name, int last, long answer, long serial, unsigned *seed)
{
    long worst = 0;
    int wrong = 0;
    for (int e = 0; e < EPISODES; e++) {
        unsigned delay = (unsigned)(rand_r(seed) % 200);
        atomic_store(&best, 0);
        atomic_store(&nodes, 0);
#pragma omp parallel
#pragma omp single
        {
#pragma omp task
            {
                delay_us(delay);
                if (last)
                    offer(search_last(0, capacity, 0));
                else
                    search_first(0, capacity, 0);
            }
        }
        long n = atomic_load(&nodes);
        worst = n > worst ? n : worst;
        wrong += atomic_load(&best) != answer;
    }
    int ok = wrong == 0 && worst <= LIMIT * serial;
    printf("%s: %s (worst of %d episodes: %.1f times the serial search's nodes, limit %d; %d wrong answers)\n",
           name, ok ? "pruned" : "NOT PRUNED", EPISODES, (double)worst / (double)serial, LIMIT, wrong);
    return ok;
}

int main(void)
{
    make_items();
    atomic_store(&best, 0);
    serial_first(0, capacity, 0);
    long answer = atomic_load(&best), serial = atomic_load(&nodes);
    unsigned seed = (unsigned)time(NULL);
    int ok = run_form("promising branch last, taskwait", 1, answer, serial, &seed);
    ok &= run_form("promising branch first, creator goes on", 0, answer, serial, &seed);
    return ok ? 0 : 1;
}
