// One scheduling problem solved on its own, outside a kernel: what
// `tilesched solve` and the Python module (`tilesched.schedule_loop`,
// `schedule_straight_line`) run. The same solver as the schedule pass, with
// what a caller from outside needs around it.
//
// Expects: a problem from ProblemReader.h (indices in range).
// Guarantees:
//  - a problem with no schedule at all is an error that says why (a memory
//    group below one version of each buffer; a cycle of same-iteration
//    dependencies with a positive total latency), never a sequential
//    fallback;
//  - every schedule returned has passed the independent checker
//    (ProblemCheck.h); when the solver's answer and the list schedule both
//    fail it (possible only with the caller's stage or phase constraints),
//    the result is an error with the checker's messages;
//  - the JSON has the upstream functions' return values under their names
//    (`start_times`, `buffer_versions`, `ii` for a loop; `start_times`,
//    `sorted_indices`, `makespan` for a straight-line list) and ours under
//    `tilesched` (lower bound, proven flag, how the search ended, the
//    checker's verdict, times).
//
//   {"start_times": [0, 82, 172, 220], "buffer_versions": [2, 2, 2], "ii": 164,
//    "tilesched": {"ii_lower_bound": 164, "proven_optimal": true, "search": "proven optimal",
//                  "fallback": false, "checker": "accepted", "solve_ms": 2.1, ...}}
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "schedule/Problem.h"
#include "schedule/Solution.h"

namespace tilesched::schedule {

struct StandaloneResult {
  bool ok = false;
  std::string error;  // why there is no schedule (when !ok)
  ProblemSolution solution;
  std::vector<std::string> checkerErrors;  // of the rejected answers, when !ok
};

// The infeasibility a look at the numbers proves, or "".
std::string provablyInfeasible(const SchedulingProblem& problem);

StandaloneResult solveStandalone(const SchedulingProblem& problem, unsigned timeoutMs);

nlohmann::json standaloneResultJson(const SchedulingProblem& problem,
                                    const StandaloneResult& result);

// The result as lines of text (`tilesched solve --emit text`).
std::string standaloneResultText(const SchedulingProblem& problem, const StandaloneResult& result);

}  // namespace tilesched::schedule
