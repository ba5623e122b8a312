// The C++ API from the installed headers: muster::barrier with a completion.
#include <muster/barrier.hpp>

#include <cstdio>
#include <thread>
#include <vector>

int main()
{
    constexpr int threads = 3, phases = 1000;
    int completed = 0;
    muster::barrier sync(threads, [&]() noexcept { completed++; });
    std::vector<std::thread> team;
    for (int t = 0; t < threads; t++)
        team.emplace_back([&] {
            for (int p = 0; p < phases; p++)
                sync.arrive_and_wait();
        });
    for (auto &t : team)
        t.join();
    std::printf("consumer_cpp: %s, %d phases completed\n", sync.algorithm_name(), completed);
    return completed == phases ? 0 : 1;
}
