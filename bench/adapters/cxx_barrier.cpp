// std::barrier and muster::barrier behind extern "C" calls, so the C
// benchmark can time them like any other barrier.  Both are used as a plain
// std::barrier<> user would: no completion function, threads without ids.
#include "cxx_barrier.h"

#include "muster/barrier.hpp"

#include <barrier>
#include <cstdio>
#include <cstddef>
#include <new>

extern "C" void *cxx_barrier_create(unsigned participants)
{
    // Exceptions must not cross into C: a failure is a NULL.
    try {
        return new std::barrier<>(static_cast<std::ptrdiff_t>(participants));
    } catch (...) {
        return nullptr;
    }
}

extern "C" void cxx_barrier_wait(void *barrier)
{
    static_cast<std::barrier<> *>(barrier)->arrive_and_wait();
}

extern "C" void cxx_barrier_destroy(void *barrier) { delete static_cast<std::barrier<> *>(barrier); }

extern "C" void *cxx_muster_barrier_create(unsigned participants, char *err, unsigned long err_len)
{
    try {
        return new muster::barrier<>(static_cast<std::ptrdiff_t>(participants));
    } catch (const std::exception &e) {
        std::snprintf(err, err_len, "muster::barrier(%u): %s", participants, e.what());
        return nullptr;
    }
}

// A failure cannot cross into C as an exception: the benchmark's barriers
// are never aborted, so one here is a bug worth stopping for.
extern "C" void cxx_muster_barrier_wait(void *barrier)
{
    try {
        static_cast<muster::barrier<> *>(barrier)->arrive_and_wait();
    } catch (const std::exception &e) {
        std::fprintf(stderr, "muster bench: muster::barrier: %s\n", e.what());
        std::abort();
    }
}

extern "C" void cxx_muster_barrier_destroy(void *barrier) { delete static_cast<muster::barrier<> *>(barrier); }
