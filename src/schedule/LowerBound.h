// Lower bounds on a loop's initiation interval and a straight-line list's
// makespan (SPEC §5 "start from a lower bound").
//
// Expects: a SchedulingProblem (Problem.h).
// Guarantees: every feasible schedule of the problem has II >= iiLowerBound
// (resp. makespan >= makespanLowerBound):
//  - resource: per pipe, Σ II of the units that occupy it (each unit's busy
//    interval must fit on the circle of length II without overlap);
//  - recurrence: for every dependency cycle, Σ latency <= II · Σ distance,
//    with every version variable at its upper bound (the most relaxed);
//    without enable_offset the window rule adds s_a - s_b >= 1 - II both
//    ways for units sharing a pipe (distance 1, latency 1), so a chain of
//    same-iteration dependencies between two tasks of one pipe bounds II;
//  - owner exclusion: forward + reverse latency of each excluded pair.
//
//   vec_add loop s: MTE2 82 + 82 = 164; cycle #2 -> #3 -> #2 (c_ub, <= 2
//   versions) needs 48 + 252 <= 2·II, so 150; bound = 164
#pragma once

#include <cstdint>

#include "schedule/Problem.h"

namespace tilesched::schedule {

int64_t resourceBound(const SchedulingProblem& problem);
int64_t recurrenceBound(const SchedulingProblem& problem);
int64_t iiLowerBound(const SchedulingProblem& problem);
// Straight-line lists: the busiest pipe, the longest dependency path and the
// longest unit.
int64_t makespanLowerBound(const SchedulingProblem& problem);

}  // namespace tilesched::schedule
