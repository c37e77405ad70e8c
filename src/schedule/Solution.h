// The answer to one SchedulingProblem: start times, II and version counts,
// with how they were found. Shared by the Z3 search, the list-schedule
// fallback and the problem dump.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tilesched::schedule {

// What the search did (`compile --stats`, bench/schedule_bench): solver
// calls by answer ("unknown" includes checks cut by the work budget and the
// ones never run because the budget was spent) and where the time went.
struct SolveStats {
  int checks = 0;
  int sat = 0, unsat = 0, unknown = 0;
  double iiSearchMs = 0;  // lower bound, II queries (and probes)
  double refineMs = 0;    // stages, version bytes, makespan at the chosen II
  double cpuMs = 0;       // CPU time of the whole solve (wall time inflates on a loaded machine)
  int64_t work = 0;       // Z3 resource units spent (the budget's unit, ModuloSolver.h)
};

struct ProblemSolution {
  bool found = false;
  int64_t ii = 0;  // the makespan for a straight-line list
  int64_t iiLowerBound = 0;
  bool provenOptimal = false;
  bool fallback = false;
  bool solverSkipped = false;  // no Z3 work at all: the list's size or an exhausted budget
  double solveMs = 0;
  std::vector<int64_t> start;     // per unit, >= 0
  std::vector<int64_t> versions;  // per version variable of the problem
  std::string note;               // why not proven / why the fallback ("" otherwise)
  SolveStats stats;
};

}  // namespace tilesched::schedule
