// A lower bound on a loop's II without enable_offset, stronger than
// LowerBound's: at a candidate II T, the difference constraints (dependencies
// with every version variable at its bound, the hull of each shared pipe's
// two orders |s_b - s_a| <= T - ii) are closed under longest paths, and every
// pipe pair or owner exclusion whose one order contradicts them is fixed to
// the other, repeatedly. T is refuted when a positive cycle appears or both
// orders of a pair contradict the closure. Every constraint added is implied
// by every schedule of II T, so a refuted T is infeasible; the weights only
// fall as T grows, so refutation is monotone and a bisection finds the
// smallest T not refuted.
//
// Expects: a loop's SchedulingProblem without enable_offset, a lower bound
// `from` (LowerBound's) and a feasible II `to` (the fallback's).
// Guarantees: returns T in [from, to] such that every II < T is infeasible.
//
//   A (V, ii 10) -> B (V, ii 30) latency 100, window: B after A in one II, so
//   s_A + T >= s_B + 30 >= s_A + 130: T >= 130
#pragma once

#include <cstdint>

#include "schedule/Problem.h"

namespace tilesched::schedule {

int64_t propagatedIIBound(const SchedulingProblem& problem, int64_t from, int64_t to);

}  // namespace tilesched::schedule
