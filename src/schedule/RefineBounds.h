// Exact lower bounds for the secondary objectives of a loop at a fixed II
// (SPEC §5: fewest version bytes, then the shortest iteration), so the
// refinement skips the solver's unsat proof whenever the schedule found
// already meets the bound.
//
// Expects: a loop's SchedulingProblem, a candidate II `ii` and a stage limit
// (every unit starts before (stageLimit + 1)·II; -1 for none).
// Guarantees: only constraints that every schedule with this II and stage
// limit satisfies are used — the difference constraints of the dependencies
// (a version variable at the count asked for), the window rule without
// enable_offset (|s_a - s_b| <= II - 1 on a shared pipe) and 0 <= s_i <=
// (stageLimit + 1)·II - 1 — never the disjunctive pipe and exclusion rules,
// so the bounds are sound but need not be reached:
//  - minimumVersions[k]: the smallest count of variable k that admits these
//    constraints with every other variable at its largest allowed count;
//  - iterationLowerBound: max over i, j of the longest path s_i -> s_j plus
//    span_j, with version variable k at most versionCaps[k].
//
//   chain a -> b, RAW 300, WAR 250 back with v versions, II 300:
//   300 + 250 <= v·300 needs v >= 2, so minimumVersions = [2]
#pragma once

#include <cstdint>
#include <vector>

#include "schedule/Problem.h"

namespace tilesched::schedule {

std::vector<int64_t> minimumVersions(const SchedulingProblem& problem, int64_t ii,
                                     int64_t stageLimit);

int64_t iterationLowerBound(const SchedulingProblem& problem, int64_t ii, int64_t stageLimit,
                            const std::vector<int64_t>& versionCaps);

}  // namespace tilesched::schedule
