// The fallback schedule (SPEC §5): used when the solver finds nothing within
// its budget. Slow but always legal.
//
// Expects: a SchedulingProblem whose memory groups admit every version
// variable at its minimum (the capacity pre-check guarantees it).
// Guarantees (sequentialSchedule): units run one after another in program order, each starting
// when the previous one has freed its pipes and its same-iteration producers
// have completed; a loop's II is at least that sequence's makespan and at
// least every cross-iteration latency, so every dependency, pipe, owner
// exclusion and window constraint holds with each version variable at its
// minimum, and every unit is in stage 0 (so same-stage groups hold). The result satisfies the
// independent checker (Check.h).
//
//   vec_add loop s: starts [0 172 344 392], II 644, versions 1 each
#pragma once

#include "schedule/Problem.h"
#include "schedule/Solution.h"

namespace tilesched::schedule {

// The better of a modulo list schedule (units in program order, each at the
// first start where it fits every unit placed before it, IIs tried upward
// from the lower bound, versions at their bound when memory holds them, the
// units of a same-stage group in one stage) and the sequential schedule.
ProblemSolution listSchedule(const SchedulingProblem& problem);
// Units strictly one after another: legal for every problem (see above).
ProblemSolution sequentialSchedule(const SchedulingProblem& problem);

// The smallest version count of each variable that `start` and `ii` need
// (SPEC §5: max over its edges of ceil((l + s_u - s_w) / II), at least the
// variable's minimum).
std::vector<int64_t> neededVersions(const SchedulingProblem& problem,
                                    const std::vector<int64_t>& start, int64_t ii);

}  // namespace tilesched::schedule
