// The C++ RVO2 library's step, timed inside the process, for bench/rvo2_native.py.
//
// Reads from standard input: the agent parameters (time step, neighbour distance, maximum
// neighbours, the two horizons, radius, maximum speed), the agent count N and N start
// positions, then N goals. Then, for every line "K" it reads, it takes K steps and prints the
// wall seconds of each step's doStep() (steady clock), one line of K numbers. Preferred
// velocities are set before each step, outside the clock, by RVO2's example rule: the unit
// vector to the goal, shorter within 1 m. A line "0" ends it.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <vector>

#include "RVO.h"

int main() {
  float time_step, neighbor_dist, horizon, horizon_obst, radius, max_speed;
  std::size_t max_neighbors, count;
  if (!(std::cin >> time_step >> neighbor_dist >> max_neighbors >> horizon >> horizon_obst >>
        radius >> max_speed >> count)) {
    return 2;
  }
  RVO::RVOSimulator sim(time_step, neighbor_dist, max_neighbors, horizon, horizon_obst, radius,
                        max_speed);
  std::vector<RVO::Vector2> goals(count);
  for (std::size_t i = 0; i < count; ++i) {
    double x, y;
    std::cin >> x >> y;
    sim.addAgent(RVO::Vector2(static_cast<float>(x), static_cast<float>(y)));
  }
  for (std::size_t i = 0; i < count; ++i) {
    double x, y;
    std::cin >> x >> y;
    goals[i] = RVO::Vector2(static_cast<float>(x), static_cast<float>(y));
  }
  std::size_t steps;
  while (std::cin >> steps && steps > 0) {
    for (std::size_t k = 0; k < steps; ++k) {
      for (std::size_t i = 0; i < count; ++i) {
        RVO::Vector2 to_goal = goals[i] - sim.getAgentPosition(i);
        float dist = RVO::abs(to_goal);
        sim.setAgentPrefVelocity(i, dist > 1.0F ? to_goal / dist : to_goal);
      }
      auto start = std::chrono::steady_clock::now();
      sim.doStep();
      std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
      std::printf(k + 1 < steps ? "%.9e " : "%.9e\n", took.count());
    }
    std::fflush(stdout);
  }
  return 0;
}
