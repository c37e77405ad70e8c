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
#include <optional>
#include <vector>

#include "schedule/Problem.h"
#include "target/Hardware.h"

namespace tilesched::schedule {

int64_t resourceBound(const SchedulingProblem& problem);
int64_t recurrenceBound(const SchedulingProblem& problem);
int64_t iiLowerBound(const SchedulingProblem& problem);
// Straight-line lists: the busiest pipe, the longest dependency path and the
// longest unit.
int64_t makespanLowerBound(const SchedulingProblem& problem);

// One edge of the recurrence graph: a dependency (dep = its index in
// problem.deps) or, without enable_offset, a window edge between two units
// sharing a pipe (dep = -1, latency 1, distance 1).
struct RecurrenceEdge {
  int from = 0, to = 0;
  int64_t latency = 0;
  int64_t distance = 0;  // version variables at their upper bound
  int dep = -1;
};

// The terms of iiLowerBound, with what produces each (for `tilesched explain`):
// bound() == iiLowerBound(problem).
struct IIBoundTerms {
  int64_t resource = 1;
  std::optional<Pipe> resourcePipe;  // the busiest pipe (first of kAllPipes on a tie)
  int64_t recurrence = 1;
  // A cycle with Σ latency > (recurrence - 1)·Σ distance, so it alone needs
  // II >= recurrence; empty when recurrence is 1.
  std::vector<RecurrenceEdge> criticalCycle;
  int64_t exclusion = 0;
  int exclusionIndex = -1;  // into problem.exclusions: the largest forward + reverse

  int64_t bound() const;
};
IIBoundTerms iiLowerBoundTerms(const SchedulingProblem& problem);

}  // namespace tilesched::schedule
