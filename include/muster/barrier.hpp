// muster::barrier — libmuster's barriers behind a C++20 class shaped like
// std::barrier, header-only over the C API (muster/barrier.h).
//
//     muster::barrier sync(threads);                  // the selector's choice
//     ...in each of `threads` threads:
//     sync.arrive_and_wait();
//
// What std::barrier has:
//   - arrive_and_wait(), and a completion function run once per phase by
//     one participant after all have arrived and before any is released;
//   - arrive() returning an arrival_token, and wait(token): where the
//     algorithm offers split-phase episodes (central-sense and
//     central-blocking; can_arrive() says so), else they throw
//     errc::unsupported;
//   - arrive_and_drop() is not offered: libmuster's barriers have a fixed
//     number of participants.
// A thread that calls without an id is given one on its first call (the
// next free one, for the life of the barrier), so a fixed set of threads can
// use it as they would std::barrier; more distinct threads than
// participants is an error (errc::range).  Threads that know their number
// pass it: arrive_and_wait(id), arrive(id); each id is used by one thread
// at a time.
//
// What libmuster adds: the algorithm, wait policy and the other attributes
// (muster::options), a timed wait (arrive_and_wait_for: a participant whose
// deadline passes breaks the barrier for all), abort() from any thread,
// reset(), and the resolved settings.  Errors are muster::error exceptions
// (a std::system_error whose code is in muster::category()); each throwing
// call has an overload that takes a std::error_code& and is noexcept.
#ifndef MUSTER_BARRIER_HPP
#define MUSTER_BARRIER_HPP

#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "muster/barrier.h"

namespace muster {

// libmuster's error codes (MUSTER_E_*, negated to be positive).
enum class errc {
    invalid_argument = -MUSTER_E_INVAL,
    unsupported = -MUSTER_E_UNSUPPORTED,
    no_memory = -MUSTER_E_NOMEM,
    range = -MUSTER_E_RANGE,
    broken = -MUSTER_E_BROKEN,
    timed_out = -MUSTER_E_TIMEDOUT,
    unknown_name = -MUSTER_E_UNKNOWN_NAME,
    system = -MUSTER_E_SYSTEM,
};

namespace detail {
class error_category_impl final : public std::error_category {
public:
    const char *name() const noexcept override { return "muster"; }
    std::string message(int code) const override { return muster_strerror(-code); }
    std::error_condition default_error_condition(int code) const noexcept override
    {
        switch (static_cast<errc>(code)) {
        case errc::invalid_argument:
        case errc::range:
        case errc::unknown_name:
            return std::errc::invalid_argument;
        case errc::unsupported:
            return std::errc::operation_not_supported;
        case errc::no_memory:
            return std::errc::not_enough_memory;
        case errc::timed_out:
            return std::errc::timed_out;
        default:
            return {code, *this};
        }
    }
};
} // namespace detail

inline const std::error_category &category() noexcept
{
    static const detail::error_category_impl instance;
    return instance;
}

inline std::error_code make_error_code(errc e) noexcept { return {static_cast<int>(e), category()}; }

// A failed call: the code, and libmuster's detail of what exactly was wrong.
class error : public std::system_error {
public:
    error(std::error_code code, const std::string &detail) : std::system_error(code, detail) {}
};

} // namespace muster

template <> struct std::is_error_code_enum<muster::errc> : std::true_type {};

namespace muster {

// Creation attributes; every default is libmuster's (the selector picks the
// algorithm for the team size and the machine).
struct options {
    muster_algorithm algorithm = MUSTER_ALG_AUTO;
    muster_wait_policy wait_policy = MUSTER_WAIT_DEFAULT;
    std::chrono::nanoseconds spin{-1}; // hybrid spin budget; < 0: default
    unsigned fan_in = 0;
    muster_wakeup wakeup = MUSTER_WAKE_DEFAULT;
    unsigned cluster_size = 0;
    muster_padding padding = MUSTER_PAD_DEFAULT;

    // By name, as MUSTER_BARRIER and MUSTER_WAIT_POLICY spell them
    // ("tuned", "dissemination", ...; "active", "passive", "hybrid").
    static options named(const std::string &algorithm, const std::string &wait_policy = "default")
    {
        options o;
        if (algorithm != "auto" && muster_algorithm_parse(algorithm.c_str(), &o.algorithm) != MUSTER_OK)
            throw error(make_error_code(errc::unknown_name), "no barrier algorithm is named '" + algorithm + "'");
        if (wait_policy != "default" && muster_wait_policy_parse(wait_policy.c_str(), &o.wait_policy) != MUSTER_OK)
            throw error(make_error_code(errc::unknown_name), "no wait policy is named '" + wait_policy + "'");
        return o;
    }

    muster_barrier_attr attr() const noexcept
    {
        muster_barrier_attr a;
        muster_barrier_attr_init(&a);
        a.algorithm = algorithm;
        a.wait_policy = wait_policy;
        a.spin_ns = spin.count();
        a.fan_in = fan_in;
        a.wakeup = wakeup;
        a.cluster_size = cluster_size;
        a.padding = padding;
        return a;
    }
};

// The completion function of a barrier without one.
struct no_completion {
    void operator()() const noexcept {}
};

namespace detail {

// A libmuster return code as an error_code (0 for success and SERIAL).
inline std::error_code to_error_code(int rc) noexcept
{
    return rc < 0 ? std::error_code(-rc, category()) : std::error_code();
}

[[noreturn]] inline void throw_error(const std::error_code &code)
{
    const char *detail = muster_error_detail();
    throw error(code, detail != nullptr && *detail != '\0' ? detail : code.message());
}

inline void throw_if(const std::error_code &code)
{
    if (code)
        throw_error(code);
}

// Each barrier's number for the threads' id caches: unlike its address, never
// reused by a later barrier.
inline std::uint64_t next_instance() noexcept
{
    static std::atomic<std::uint64_t> instances{0};
    return instances.fetch_add(1, std::memory_order_relaxed) + 1; // relaxed: only uniqueness matters
}

// The ids this thread holds in the barriers it used last: a hit costs a few
// compares; a miss asks the barrier's table.
struct id_cache {
    struct entry {
        std::uint64_t instance = 0;
        unsigned id = 0;
    };
    std::array<entry, 4> entries{};
    unsigned next = 0;

    static id_cache &mine() noexcept
    {
        static thread_local id_cache cache;
        return cache;
    }
};

} // namespace detail

template <class CompletionFunction = no_completion>
class barrier {
    static_assert(std::is_nothrow_invocable_v<CompletionFunction &>,
                  "the completion function must be invocable without arguments and noexcept, as std::barrier's");

public:
    // arrive()'s result, for wait(): one use.
    class arrival_token {
    public:
        arrival_token(arrival_token &&) noexcept = default;
        arrival_token &operator=(arrival_token &&) noexcept = default;

    private:
        friend class barrier;
        arrival_token(unsigned id, muster_arrival arrival) noexcept : id_(id), arrival_(arrival) {}
        unsigned id_;
        muster_arrival arrival_;
    };

    static constexpr std::ptrdiff_t max() noexcept { return MUSTER_MAX_PARTICIPANTS; }

    explicit barrier(std::ptrdiff_t expected, CompletionFunction completion = CompletionFunction(),
                     const options &opts = options())
        : completion_(std::move(completion)), instance_(detail::next_instance())
    {
        if (expected < 1 || expected > max())
            throw error(make_error_code(errc::invalid_argument),
                        "a barrier needs 1 to " + std::to_string(max()) + " participants, not " +
                            std::to_string(expected));
        muster_barrier_attr attr = opts.attr();
        detail::throw_if(detail::to_error_code(muster_barrier_create(&handle_, static_cast<unsigned>(expected), &attr)));
        participants_ = static_cast<unsigned>(expected);
        can_arrive_ = muster_barrier_can_arrive(handle_) != 0;
        can_split_ = muster_barrier_can_split(handle_) != 0;
    }

    barrier(std::ptrdiff_t expected, const options &opts) : barrier(expected, CompletionFunction(), opts) {}

    barrier(const barrier &) = delete;
    barrier &operator=(const barrier &) = delete;
    ~barrier() { muster_barrier_destroy(handle_); }

    // ---- std::barrier's calls, the thread's own id ----

    void arrive_and_wait() { arrive_and_wait(my_id()); }
    [[nodiscard]] arrival_token arrive() { return arrive(my_id()); }
    void wait(arrival_token &&token) const
    {
        std::error_code ec;
        wait(std::move(token), ec);
        detail::throw_if(ec);
    }

    // ---- explicit participant ids ----

    void arrive_and_wait(unsigned id)
    {
        std::error_code ec;
        arrive_and_wait(id, ec);
        detail::throw_if(ec);
    }

    void arrive_and_wait(unsigned id, std::error_code &ec) noexcept { ec = episode(id, 0); }

    [[nodiscard]] arrival_token arrive(unsigned id)
    {
        std::error_code ec;
        arrival_token token = arrive(id, ec);
        detail::throw_if(ec);
        return token;
    }

    [[nodiscard]] arrival_token arrive(unsigned id, std::error_code &ec) noexcept
    {
        muster_arrival arrival{};
        ec = detail::to_error_code(muster_barrier_arrive_then(handle_, id, &arrival, completion_step(), this));
        return arrival_token(id, arrival);
    }

    void wait(arrival_token &&token, std::error_code &ec) const noexcept
    {
        ec = detail::to_error_code(muster_barrier_await(handle_, token.id_, token.arrival_));
    }

    // ---- libmuster's extras ----

    // arrive_and_wait with a deadline: false when it passed (the barrier is
    // then broken for every participant until reset()).
    template <class Rep, class Period>
    bool arrive_and_wait_for(unsigned id, const std::chrono::duration<Rep, Period> &timeout)
    {
        auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(timeout).count();
        std::error_code ec = episode(id, ns > 0 ? static_cast<std::uint64_t>(ns) : 1u);
        if (ec == make_error_code(errc::timed_out))
            return false;
        detail::throw_if(ec);
        return true;
    }
    template <class Rep, class Period>
    bool arrive_and_wait_for(const std::chrono::duration<Rep, Period> &timeout)
    {
        return arrive_and_wait_for(my_id(), timeout);
    }

    // Breaks the barrier: current and later waits fail with errc::broken
    // until reset().  Any thread, any time.
    void abort() noexcept { (void)muster_barrier_abort(handle_); }
    // Makes a broken barrier usable again; nobody may be waiting.
    void reset() { detail::throw_if(detail::to_error_code(muster_barrier_reset(handle_))); }
    bool broken() const noexcept { return muster_barrier_is_broken(handle_) == 1; }

    unsigned participants() const noexcept { return participants_; }
    bool can_arrive() const noexcept { return can_arrive_; }
    // The settings in use, every default resolved.
    options settings() const noexcept
    {
        muster_barrier_attr a;
        muster_barrier_get_attr(handle_, &a);
        options o;
        o.algorithm = a.algorithm;
        o.wait_policy = a.wait_policy;
        o.spin = std::chrono::nanoseconds(a.spin_ns);
        o.fan_in = a.fan_in;
        o.wakeup = a.wakeup;
        o.cluster_size = a.cluster_size;
        o.padding = a.padding;
        return o;
    }
    const char *algorithm_name() const noexcept { return muster_algorithm_name(settings().algorithm); }
    muster_barrier *native_handle() noexcept { return handle_; }

private:
    static constexpr bool has_completion = !std::is_same_v<CompletionFunction, no_completion>;

    static void run_completion(void *self) noexcept { static_cast<barrier *>(self)->completion_(); }

    static constexpr void (*completion_step() noexcept)(void *)
    {
        return has_completion ? &run_completion : nullptr;
    }

    // One whole phase of participant id (timeout_ns 0: none).  The
    // completion runs where the algorithm lets it run before the release:
    // in the completing arrival (central barriers), else in participant 0
    // between gather and release (the trees), else between two episodes.
    std::error_code episode(unsigned id, std::uint64_t timeout_ns) noexcept
    {
        if (!has_completion)
            return wait_once(id, timeout_ns);
        if (can_arrive_) {
            muster_arrival arrival{};
            int rc = muster_barrier_arrive_then(handle_, id, &arrival, &run_completion, this);
            if (rc < 0)
                return detail::to_error_code(rc);
            return detail::to_error_code(timeout_ns != 0 ? muster_barrier_await_timeout(handle_, id, arrival, timeout_ns)
                                                         : muster_barrier_await(handle_, id, arrival));
        }
        if (can_split_ && timeout_ns == 0) {
            if (id != 0)
                return wait_once(id, 0);
            int rc = muster_barrier_gather(handle_);
            if (rc < 0)
                return detail::to_error_code(rc);
            completion_();
            return detail::to_error_code(muster_barrier_release(handle_));
        }
        int rc = timeout_ns != 0 ? muster_barrier_wait_timeout(handle_, id, timeout_ns)
                                 : muster_barrier_wait(handle_, id);
        if (rc < 0)
            return detail::to_error_code(rc);
        if (rc == MUSTER_BARRIER_SERIAL)
            completion_();
        return wait_once(id, timeout_ns);
    }

    std::error_code wait_once(unsigned id, std::uint64_t timeout_ns) noexcept
    {
        int rc = timeout_ns != 0 ? muster_barrier_wait_timeout(handle_, id, timeout_ns)
                                 : muster_barrier_wait(handle_, id);
        return detail::to_error_code(rc);
    }

    // The calling thread's id in this barrier: from its cache, else from the
    // barrier's table, else the next free one.
    unsigned my_id()
    {
        detail::id_cache &cache = detail::id_cache::mine();
        for (const auto &e : cache.entries)
            if (e.instance == instance_)
                return e.id;
        unsigned id = claim_id();
        cache.entries[cache.next] = {instance_, id};
        cache.next = (cache.next + 1) % cache.entries.size();
        return id;
    }

    unsigned claim_id()
    {
        std::lock_guard<std::mutex> hold(claims_lock_);
        std::thread::id me = std::this_thread::get_id();
        for (unsigned id = 0; id < claimed_.size(); id++)
            if (claimed_[id] == me)
                return id;
        if (claimed_.size() == participants_)
            throw error(make_error_code(errc::range),
                        "more threads than the barrier's " + std::to_string(participants_) +
                            " participants called it without an id");
        claimed_.push_back(me);
        return static_cast<unsigned>(claimed_.size() - 1);
    }

    muster_barrier *handle_ = nullptr;
    [[no_unique_address]] CompletionFunction completion_;
    std::uint64_t instance_;
    unsigned participants_ = 0;
    bool can_arrive_ = false, can_split_ = false;
    std::mutex claims_lock_;
    std::vector<std::thread::id> claimed_; // id -> the thread that holds it
};

} // namespace muster

#endif
