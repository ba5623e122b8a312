/* C++20 std::barrier, and muster's C++ API (muster::barrier, used the same
 * way: threads without ids), for the C benchmark: created, waited on and
 * destroyed through plain C calls (cxx_barrier.cpp). */
#ifndef MUSTER_BENCH_CXX_BARRIER_H
#define MUSTER_BENCH_CXX_BARRIER_H

#ifdef __cplusplus
extern "C" {
#endif

/* NULL if the barrier could not be constructed. */
void *cxx_barrier_create(unsigned participants);
void cxx_barrier_wait(void *barrier);
void cxx_barrier_destroy(void *barrier);

/* muster::barrier<> with libmuster's defaults; NULL with a message in err
 * (err_len bytes) if it could not be constructed. */
void *cxx_muster_barrier_create(unsigned participants, char *err, unsigned long err_len);
void cxx_muster_barrier_wait(void *barrier);
void cxx_muster_barrier_destroy(void *barrier);

#ifdef __cplusplus
}
#endif
#endif
