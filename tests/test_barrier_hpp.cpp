// muster::barrier (muster/barrier.hpp), as a std::barrier user would use it:
//  - threads without ids (each given one on its first call), 3, 5 and 7 of
//    them (oversubscribed on small machines), random delays, double-buffered
//    plain parts checked after every phase (ThreadSanitizer checks the
//    ordering), with a completion function that must run once per phase,
//    after every arrival and before any release; on an algorithm of each
//    kind: split-phase (central-sense), split at participant 0 (tournament),
//    neither (dissemination), and the selector's choice;
//  - arrive() / wait(token) where offered, errc::unsupported where not;
//  - explicit ids; more threads than participants (errc::range);
//  - a timed wait that expires breaks the barrier for everyone, abort()
//    from another thread, reset();
//  - bad arguments, names, and the error category's conditions.
#include "muster/barrier.hpp"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

namespace {

int failures = 0;

#define EXPECT(cond, ...)                                                                                            \
    do {                                                                                                             \
        if (!(cond)) {                                                                                               \
            std::fprintf(stderr, "%s:%d: EXPECT(%s) failed: ", __FILE__, __LINE__, #cond);                         \
            std::fprintf(stderr, __VA_ARGS__);                                                                       \
            std::fputc('\n', stderr);                                                                                \
            failures++;                                                                                              \
        }                                                                                                            \
    } while (0)

double scale()
{
    const char *s = std::getenv("MUSTER_TEST_SCALE");
    double v = s != nullptr ? std::atof(s) : 1.0;
    return v > 0.0 ? v : 1.0;
}

unsigned next_random(unsigned &state)
{
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    return state != 0 ? state : (state = 0x9e3779b9u);
}

void random_delay(unsigned &state)
{
    unsigned r = next_random(state);
    if (r % 16 == 0)
        std::this_thread::yield();
    else
        for (unsigned i = 0; i < r % 1500; i++)
            __asm__ volatile("" ::: "memory");
}

// A team's shared state: each thread's part of phase e in parts[e % 2].
struct phase_state {
    unsigned threads = 0;
    std::vector<unsigned long> parts[2];
    unsigned long completed = 0; // plain: written by the completion only
    std::atomic<int> errors{0};
};

struct record_phase {
    phase_state *state;
    void operator()() noexcept
    {
        // Every part of this phase is in: completed + 1 is the phase.
        unsigned long phase = state->completed + 1;
        for (unsigned j = 0; j < state->threads; j++)
            if (state->parts[(phase - 1) % 2][j] != phase)
                state->errors++;
        state->completed = phase;
    }
};

// `threads` threads without ids, `phases` phases; split: arrive/wait tokens.
void run_team(const muster::options &opts, unsigned threads, unsigned phases, bool split, const char *what)
{
    phase_state state;
    state.threads = threads;
    state.parts[0].assign(threads, 0);
    state.parts[1].assign(threads, 0);
    muster::barrier<record_phase> sync(threads, record_phase{&state}, opts);
    std::vector<unsigned> slot_of(threads);
    std::atomic<unsigned> next_slot{0};
    std::vector<std::thread> team;
    for (unsigned t = 0; t < threads; t++)
        team.emplace_back([&, t] {
            unsigned seed = 0x12345u * (t + 1) + threads;
            unsigned me = next_slot++; // this thread's part index (not its barrier id)
            try {
                for (unsigned e = 0; e < phases; e++) {
                    random_delay(seed);
                    state.parts[e % 2][me] = e + 1;
                    if (split) {
                        auto token = sync.arrive();
                        random_delay(seed);
                        sync.wait(std::move(token));
                    } else {
                        sync.arrive_and_wait();
                    }
                    if (state.completed != e + 1) {
                        state.errors++;
                        sync.abort(); // frees the others, who stop too
                        return;
                    }
                }
            } catch (const muster::error &) {
                state.errors++; // broken by a member that saw an error
            }
        });
    for (auto &t : team)
        t.join();
    EXPECT(state.errors == 0, "%s, %u threads: %d phases seen wrong", what, threads, state.errors.load());
    EXPECT(state.completed == phases, "%s, %u threads: %lu phases completed, expected %u", what, threads,
           state.completed, phases);
}

void test_teams()
{
    unsigned phases = static_cast<unsigned>(600 * scale()) + 1;
    struct {
        const char *name;
        bool split;
    } kinds[] = {{"central-sense", true}, {"central-sense", false}, {"central-blocking", true},
                 {"tournament", false},   {"dissemination", false}, {"auto", false}};
    for (auto &k : kinds)
        for (unsigned threads : {1u, 3u, 5u, 7u}) {
            muster::options opts = muster::options::named(k.name, "hybrid");
            std::string what = std::string(k.name) + (k.split ? " arrive/wait" : "");
            run_team(opts, threads, threads > 2 ? phases / 3 : phases, k.split, what.c_str());
        }
}

void test_unsupported_arrive()
{
    muster::barrier<> sync(2, muster::options::named("tournament"));
    EXPECT(!sync.can_arrive(), "tournament offers arrive()");
    std::error_code ec;
    (void)sync.arrive(0, ec);
    EXPECT(ec == muster::errc::unsupported, "arrive on tournament: %s", ec.message().c_str());
    EXPECT(ec == std::errc::operation_not_supported, "the condition of errc::unsupported");
    bool threw = false;
    try {
        (void)sync.arrive();
    } catch (const muster::error &e) {
        threw = e.code() == muster::errc::unsupported && std::string(e.what()).find("split-phase") != std::string::npos;
    }
    EXPECT(threw, "arrive() on tournament should throw errc::unsupported naming split-phase episodes");
}

void test_explicit_ids_and_too_many_threads()
{
    muster::barrier<> sync(2);
    std::thread other([&] { sync.arrive_and_wait(1); });
    sync.arrive_and_wait(0);
    other.join();
    // Three live threads without ids on a barrier of two: the third is
    // refused.  (Thread a stays alive: a thread that has exited leaves its
    // id to a new thread that gets its std::thread::id, as a pool's
    // replacement thread should.)
    muster::barrier<> two(2);
    std::atomic<bool> done{false};
    std::thread a([&] {
        two.arrive_and_wait();
        while (!done)
            std::this_thread::yield();
    });
    two.arrive_and_wait();
    bool threw = false;
    std::thread b([&] {
        try {
            two.arrive_and_wait();
        } catch (const muster::error &e) {
            threw = e.code() == muster::errc::range;
        }
    });
    b.join();
    done = true;
    a.join();
    EXPECT(threw, "a third thread without an id on a barrier of two should get errc::range");
    // Out-of-range explicit id.
    std::error_code ec;
    two.arrive_and_wait(5, ec);
    EXPECT(ec == muster::errc::range, "id 5 of 2: %s", ec.message().c_str());
}

void test_timeout_abort_reset()
{
    using namespace std::chrono_literals;
    for (const char *name : {"central-sense", "tournament", "dissemination"}) {
        int phases = 0;
        muster::barrier sync(2, [&phases]() noexcept { phases++; }, muster::options::named(name));
        // Participant 1 never comes: the timed wait expires and breaks it.
        auto start = std::chrono::steady_clock::now();
        bool in_time = sync.arrive_and_wait_for(0, 20ms);
        EXPECT(!in_time, "%s: the timed wait should expire", name);
        EXPECT(std::chrono::steady_clock::now() - start >= 19ms, "%s: it returned before its deadline", name);
        EXPECT(sync.broken(), "%s: an expired wait should break the barrier", name);
        std::error_code ec;
        sync.arrive_and_wait(1, ec);
        EXPECT(ec == muster::errc::broken, "%s: after the timeout: %s", name, ec.message().c_str());
        EXPECT(phases == 0, "%s: a completion ran for a phase that never completed", name);
        sync.reset();
        EXPECT(!sync.broken(), "%s: reset", name);
        // abort() from another thread frees a waiter.
        std::thread aborter([&] {
            std::this_thread::sleep_for(10ms);
            sync.abort();
        });
        bool threw = false;
        try {
            sync.arrive_and_wait(0);
        } catch (const muster::error &e) {
            threw = e.code() == muster::errc::broken;
        }
        aborter.join();
        EXPECT(threw, "%s: abort() should free the waiter with errc::broken", name);
        sync.reset();
        // Usable again, completion included.
        std::thread other([&] { sync.arrive_and_wait(1); });
        sync.arrive_and_wait(0);
        other.join();
        EXPECT(phases == 1, "%s: after reset one phase, %d completions", name, phases);
    }
}

void test_bad_input_and_settings()
{
    bool threw = false;
    try {
        muster::barrier<> none(0);
    } catch (const muster::error &e) {
        threw = e.code() == muster::errc::invalid_argument && std::string(e.what()).find("not 0") != std::string::npos;
    }
    EXPECT(threw, "barrier(0) should throw errc::invalid_argument saying what it got");
    threw = false;
    try {
        (void)muster::options::named("no-such-barrier");
    } catch (const muster::error &e) {
        threw = e.code() == muster::errc::unknown_name &&
                std::string(e.what()).find("no-such-barrier") != std::string::npos;
    }
    EXPECT(threw, "an unknown algorithm name should throw errc::unknown_name naming it");
    threw = false;
    try {
        muster::options o = muster::options::named("static-fway");
        o.fan_in = 1000;
        muster::barrier<> bad(4, o);
    } catch (const muster::error &e) {
        threw = e.code() == muster::errc::invalid_argument;
    }
    EXPECT(threw, "static-fway with fan-in 1000 should throw errc::invalid_argument");
    muster::barrier<> chosen(3);
    EXPECT(chosen.settings().algorithm != MUSTER_ALG_AUTO, "settings() should resolve the selector's choice");
    EXPECT(chosen.participants() == 3, "participants()");
    EXPECT(muster::make_error_code(muster::errc::timed_out) == std::errc::timed_out, "timed_out's condition");
    EXPECT(std::string(muster::category().name()) == "muster", "the category's name");
}

} // namespace

int main()
{
    test_teams();
    test_unsupported_arrive();
    test_explicit_ids_and_too_many_threads();
    test_timeout_abort_reset();
    test_bad_input_and_settings();
    if (failures != 0) {
        std::fprintf(stderr, "test_barrier_hpp: %d failures\n", failures);
        return 1;
    }
    std::printf("test_barrier_hpp: ok\n");
    return 0;
}
