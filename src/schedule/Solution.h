// The answer to one SchedulingProblem: start times, II and version counts,
// with how they were found. Shared by the Z3 search, the list-schedule
// fallback and the problem dump.
#pragma once

#include <cstdint>
#include <vector>

namespace tilesched::schedule {

struct ProblemSolution {
  bool found = false;
  int64_t ii = 0;  // the makespan for a straight-line list
  int64_t iiLowerBound = 0;
  bool provenOptimal = false;
  bool fallback = false;
  double solveMs = 0;
  std::vector<int64_t> start;     // per unit, >= 0
  std::vector<int64_t> versions;  // per version variable of the problem
};

}  // namespace tilesched::schedule
