/* threadprivate variables for code clang builds with -fnoopenmp-use-tls
 * (by default clang, like gcc, uses thread-local storage and calls nothing).
 *
 * __kmpc_threadprivate_cached(loc, gtid, orig, size, cache) returns the
 * calling thread's copy of the variable whose original is at `orig`: the
 * process's initial thread uses the original itself; any other thread gets
 * its own copy at first use, made by the constructor registered for it
 * (C++, __kmpc_threadprivate_register) or else copied from the original's
 * value as it was when the variable was first asked for (its initial
 * value, as the copies must start from).  A thread keeps its copies until
 * it exits (then registered destructors run), so values persist from one
 * region to the next on the same pool thread.  The compiler's `cache` slot
 * is not used: the copies are found in a small per-thread table. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "omp/kmp/kmp.h"
#include "omp/mutex.h"
#include "platform/platform.h"

typedef void *(*kmpc_ctor)(void *);
typedef void *(*kmpc_cctor)(void *, void *);
typedef void (*kmpc_dtor)(void *);
/* The array forms: construct or destroy `n` objects from the address on. */
typedef void *(*kmpc_ctor_vec)(void *, size_t);
typedef void *(*kmpc_cctor_vec)(void *, void *, size_t);
typedef void (*kmpc_dtor_vec)(void *, size_t);

/* One threadprivate variable: process-wide, never freed. */
typedef struct tp_variable {
    struct tp_variable *next;
    void *orig;
    size_t size;
    void *initial;          /* the original's bytes when first asked for; NULL with a ctor */
    kmpc_ctor ctor;
    kmpc_dtor dtor;
    kmpc_ctor_vec ctor_vec;  /* an array of C++ objects (register_vec) */
    kmpc_dtor_vec dtor_vec;
    size_t vector_length;
} tp_variable;

static tp_variable *variables;          /* guarded by variables_lock */
static muster_omp_mutex variables_lock; /* 0: unlocked */

/* A thread's copies: orig -> copy, open addressing, grown by doubling. */
typedef struct tp_entry {
    void *orig;
    void *copy;
    tp_variable *var;
} tp_entry;

typedef struct tp_table {
    size_t capacity, used; /* capacity a power of two */
    tp_entry *entries;
} tp_table;

static _Thread_local tp_table table;
static pthread_key_t exit_key;
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;

static size_t slot_of(const void *orig, size_t capacity)
{
    uintptr_t h = (uintptr_t)orig;
    h ^= h >> 17;
    h *= UINT64_C(0x9e3779b97f4a7c15);
    return (size_t)(h >> 20) & (capacity - 1);
}

static tp_entry *find(tp_table *t, const void *orig)
{
    if (t->capacity == 0)
        return NULL;
    for (size_t i = slot_of(orig, t->capacity);; i = (i + 1) & (t->capacity - 1)) {
        if (t->entries[i].orig == orig)
            return &t->entries[i];
        if (t->entries[i].orig == NULL)
            return NULL;
    }
}

static void insert(tp_table *t, tp_entry e)
{
    if (2 * (t->used + 1) > t->capacity) {
        tp_table bigger = {t->capacity ? 2 * t->capacity : 16, 0, NULL};
        bigger.entries = calloc(bigger.capacity, sizeof *bigger.entries);
        if (bigger.entries == NULL)
            muster_omp_fatal("out of memory for threadprivate copies");
        for (size_t i = 0; i < t->capacity; i++)
            if (t->entries[i].orig != NULL)
                insert(&bigger, t->entries[i]);
        free(t->entries);
        *t = bigger;
    }
    size_t i = slot_of(e.orig, t->capacity);
    while (t->entries[i].orig != NULL)
        i = (i + 1) & (t->capacity - 1);
    t->entries[i] = e;
    t->used++;
}

/* At a thread's exit: destructors, then the copies go. */
static void free_copies(void *unused)
{
    (void)unused;
    tp_table *t = &table;
    for (size_t i = 0; i < t->capacity; i++) {
        tp_entry *e = &t->entries[i];
        if (e->orig == NULL)
            continue;
        if (e->var->dtor)
            e->var->dtor(e->copy);
        else if (e->var->dtor_vec)
            e->var->dtor_vec(e->copy, e->var->vector_length);
        free(e->copy);
    }
    free(t->entries);
    *t = (tp_table){0, 0, NULL};
}

static void make_exit_key(void)
{
    if (pthread_key_create(&exit_key, free_copies) != 0)
        muster_omp_fatal("cannot create the threadprivate key");
}

/* The variable whose original is orig, registered on first sight. */
static tp_variable *variable(void *orig, size_t size, kmpc_ctor ctor, kmpc_dtor dtor, bool from_register)
{
    muster_omp_mutex_lock(&variables_lock);
    tp_variable *v = variables;
    while (v != NULL && v->orig != orig)
        v = v->next;
    if (v == NULL) {
        v = calloc(1, sizeof *v);
        if (v == NULL)
            muster_omp_fatal("out of memory for a threadprivate variable");
        v->orig = orig;
        v->next = variables;
        variables = v;
    }
    if (from_register) {
        v->ctor = ctor;
        v->dtor = dtor;
    } else if (v->size == 0 && size != 0) {
        v->size = size;
        if (v->ctor == NULL && v->ctor_vec == NULL) {
            v->initial = malloc(size);
            if (v->initial == NULL)
                muster_omp_fatal("out of memory for a threadprivate variable's initial value");
            memcpy(v->initial, orig, size);
        }
    }
    muster_omp_mutex_unlock(&variables_lock);
    return v;
}

static bool initial_thread(void)
{
    return muster_thread_os_id() == getpid();
}

MUSTER_OMP_EXPORT void *__kmpc_threadprivate_cached(ident_t *loc, kmp_int32 gtid, void *orig, size_t size,
                                                    void ***cache)
{
    (void)loc, (void)gtid, (void)cache;
    tp_entry *e = find(&table, orig);
    if (__builtin_expect(e != NULL, 1))
        return e->copy;
    tp_variable *v = variable(orig, size, NULL, NULL, false);
    if (initial_thread()) {
        insert(&table, (tp_entry){orig, orig, v});
        return orig;
    }
    pthread_once(&exit_key_once, make_exit_key);
    pthread_setspecific(exit_key, &table); /* non-NULL: free_copies runs at exit */
    void *copy = malloc(size ? size : 1);
    if (copy == NULL)
        muster_omp_fatal("out of memory for a threadprivate copy of %zu bytes", size);
    if (v->ctor)
        v->ctor(copy);
    else if (v->ctor_vec)
        v->ctor_vec(copy, v->vector_length);
    else
        memcpy(copy, v->initial, size);
    insert(&table, (tp_entry){orig, copy, v});
    return copy;
}

/* C++: how a copy is made (ctor; cctor is not used by clang) and destroyed. */
MUSTER_OMP_EXPORT void __kmpc_threadprivate_register(ident_t *loc, void *orig, kmpc_ctor ctor, kmpc_cctor cctor,
                                                     kmpc_dtor dtor)
{
    (void)loc, (void)cctor;
    variable(orig, 0, ctor, dtor, true);
}

/* The array form of the above (Intel's compilers): vector_length objects. */
MUSTER_OMP_EXPORT void __kmpc_threadprivate_register_vec(ident_t *loc, void *orig, kmpc_ctor_vec ctor,
                                                         kmpc_cctor_vec cctor, kmpc_dtor_vec dtor,
                                                         size_t vector_length)
{
    (void)loc, (void)cctor;
    tp_variable *v = variable(orig, 0, NULL, NULL, true);
    muster_omp_mutex_lock(&variables_lock);
    v->ctor_vec = ctor;
    v->dtor_vec = dtor;
    v->vector_length = vector_length;
    muster_omp_mutex_unlock(&variables_lock);
}

/* The older form without the compiler's cache slot: the same copies. */
MUSTER_OMP_EXPORT void *__kmpc_threadprivate(ident_t *loc, kmp_int32 gtid, void *orig, size_t size)
{
    return __kmpc_threadprivate_cached(loc, gtid, orig, size, NULL);
}
