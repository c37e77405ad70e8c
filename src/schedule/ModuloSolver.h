// The Z3 modulo scheduler of one unit list (SPEC §5).
//
// Expects: a SchedulingProblem, its lower bound and a legal fallback schedule
// (ListFallback.h) that bounds the search from above.
// Guarantees:
//  - loops: for a candidate II (a constant per probe) the model of
//    s_i = k_i·II + r_i, written over the starts alone (k_i and r_i are
//    floor(s_i / II) and s_i mod II; docs/scheduler.md); s_w - s_u >= l - II·d for every dependency
//    (d a version variable 1 <= v <= bound, or a constant); circular non-overlap of the busy
//    intervals [r, r + II_task) of units sharing a pipe; an ordered choice per owner-exclusion pair
//    covering the forward and the wrap-around hand-off; Σ v·bytes <= capacity per memory group;
//    without enable_offset, |s_a - s_b| < II for units sharing a pipe. Without enable_offset II
//    is a solver variable (everything is linear in it) bisected between the lower bound (raised
//    by order propagation, PropagationBound.h) and the fallback's II; with it II is a constant per
//    probe, searched upward from the lower bound, then by bisection. One solver (push/pop) per
//    list; the list's checks share the work budget (Z3 resource units; each gets what is left, none
//    once it is spent); "unknown" is never taken as infeasible. At the chosen II the stages, then
//    the version bytes, then the makespan are minimised, starting from the query's model (each step
//    keeps the best model when a check times out; RefineBounds.h ends a step without a proof when
//    its exact bound is met). Under enable_offset the units of each same-stage group (SPEC §6.1
//    counter storages) share one stage. provenOptimal only when every II below the answer was
//    proven infeasible.
//  - straight-line lists: the makespan is bisected between its lower bound
//    and the fallback's (monotone, so an unsat answer below proves optimality).
//  - deterministic: fixed seed, one thread; the same problem gives the same
//    schedule whenever no check hits its budget.
//  - returns the fallback (fallback = true) when no check succeeds, and
//    without any Z3 work (no encoding, no check: `solverSkipped`) for a list
//    of more than `maxUnits` units or a zero budget: the encoding has a
//    constraint per pair of units sharing a pipe, and Z3's first push/check
//    on it is not bounded by the check's timeout (1.5 s at 210 units).
//
//   vec_add loop s: lower bound 164; II 164 sat -> proven optimal, stages
//   [0 0 1 1], versions a_ub 2, b_ub 2, c_ub 2
#pragma once

#include <cstdint>

#include "schedule/Problem.h"
#include "schedule/Solution.h"

namespace z3 {
class context;
}

namespace tilesched::schedule {

// The budget is Z3 work, not time: `timeoutMs` buys timeoutMs ×
// kWorkPerMs resource units (Z3's rlimit), so the answer does not depend on
// how loaded the machine is (issue 17 §2); kWorkPerMs was measured on the
// project's 2-core machines (0.5 to 1 µs per unit on the wide-loop problems).
// A wall-clock limit of ten times the budget stays as a backstop.
inline constexpr int64_t kWorkPerMs = 1000;

struct SolverLimits {
  unsigned timeoutMs = 2000;       // per list: every check gets what is left; 0: no solver
  int maxUnits = kMaxSolverUnits;  // larger lists: no solver
  int maxLinearProbes = 16;        // IIs tried one by one above the lower bound
  int maxRefinementChecks = 24;    // checks spent on stages, bytes and makespan
};

ProblemSolution solveProblem(const SchedulingProblem& problem, const ProblemSolution& fallback,
                             z3::context& context, const SolverLimits& limits);

}  // namespace tilesched::schedule
