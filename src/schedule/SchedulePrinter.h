// `tilesched compile --emit schedule`: the kernel (with the written-back
// buffer-versions map) followed by every unit list's schedule, each unit's
// statement with its stage and start as a comment, each loop's II, lower
// bound and proven flag, and the versions of every storage.
//
//   # loop s (line 40): II 164, lower bound 164, proven optimal, max stage 1, ...
//   T.copy(A[bx * 4096 + s * 1024:...], a_ub)   # unit 0  MTE2  stage 0  start 0
//   ...
//   # versions: a_ub 2 (solver, bound 2), b_ub 2 (solver, bound 2), ...
#pragma once

#include <string>

#include "analysis/TaskGraph.h"
#include "ir/IR.h"
#include "schedule/Schedule.h"

namespace tilesched::schedule {

std::string printSchedule(const ir::Kernel& kernel, const analysis::KernelAnalysis& analysis,
                          const KernelSchedule& schedule);

}  // namespace tilesched::schedule
