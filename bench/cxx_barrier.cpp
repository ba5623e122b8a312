// std::barrier behind extern "C" calls, so the C benchmark can time it like
// any other barrier.  The default completion function (none) is what a plain
// std::barrier<> user gets.
#include "cxx_barrier.h"

#include <barrier>
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
