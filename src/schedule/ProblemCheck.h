// An independent checker of an answer to a SchedulingProblem, on the plain
// numbers alone (no unit list, no Z3): what `tilesched solve` and the Python
// module run on every schedule before they return it. The compiler's own
// answers are checked against the unit list (Check.h); this one lets a
// problem that came from outside (a JSON file, TileLang's keyword arguments)
// be judged by the same rules.
//
// Expects: a problem whose indices are in range (ProblemReader.h checks them).
// Guarantees: one message per violated constraint, naming the input field
// and entry it comes from ("data_deps[3]: ..."); empty when every constraint
// of SPEC §5 (loops) or of the makespan problem (straight-line lists) holds,
// and every caller constraint of Problem.h (phase order, stage order, fixed
// stages) too.
//
//   data_deps[1] (2 -> 0, distance v0 = 1): s0 - s2 = -60 but it must be >= 48 - 164·1
#pragma once

#include <string>
#include <vector>

#include "schedule/Problem.h"
#include "schedule/Solution.h"

namespace tilesched::schedule {

std::vector<std::string> checkProblemSolution(const SchedulingProblem& problem,
                                              const ProblemSolution& solution);

}  // namespace tilesched::schedule
