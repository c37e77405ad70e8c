// The search of ModuloSolver on hand-built problems (SPEC §5): a loop whose
// II lies well above its lower bound, solved with II as a variable (no
// enable_offset) and by constant-II probes (enable_offset), and what each may
// claim as proven.
#include <gtest/gtest.h>
#include <z3++.h>

#include "schedule/ListFallback.h"
#include "schedule/LowerBound.h"
#include "schedule/ModuloSolver.h"
#include "schedule/PropagationBound.h"
#include "schedule/RefineBounds.h"

using namespace tilesched;
using namespace tilesched::schedule;

namespace {

// A (MTE2, ii 10) -> B (V, ii 1) latency 100 -> C (MTE2, ii 30) latency 5,
// and C -> A carried (distance 1, latency 1). The recurrence bound is
// 100 + 5 + 1 = 106, but C (>= 105 after A) must also leave A's pipe free
// before A's next start: s_C + 30 <= s_A + II, so II >= 135.
SchedulingProblem lateLoop(bool enableOffset) {
  SchedulingProblem p;
  p.isLoop = true;
  p.enableOffset = enableOffset;
  p.numStages = 2;
  p.latency = {10, 1, 30};
  p.ii = {10, 1, 30};
  p.pipeMask = {pipeMask(Pipe::MTE2), pipeMask(Pipe::V), pipeMask(Pipe::MTE2)};
  p.deps = {{0, 1, 100, 0, -1}, {1, 2, 5, 0, -1}, {2, 0, 1, 1, -1}};
  return p;
}

constexpr int64_t kTrueII = 100 + 5 + 30;

}  // namespace

TEST(ModuloSolver, LowerBoundIsTheRecurrence) {
  EXPECT_EQ(iiLowerBound(lateLoop(true)), 100 + 5 + 1);
  EXPECT_EQ(resourceBound(lateLoop(true)), 40);
}

TEST(ModuloSolver, VariableIIProvesAnIIAboveTheBound) {
  z3::context c;
  auto p = lateLoop(false);
  auto s = solveProblem(p, listSchedule(p), c, {});
  EXPECT_FALSE(s.fallback);
  EXPECT_EQ(s.ii, kTrueII);
  EXPECT_EQ(s.iiLowerBound, 106);
  EXPECT_TRUE(s.provenOptimal);  // II <= 134 refuted in one query
}

TEST(ModuloSolver, ProbesProveOnlyWhatTheyRefuteOneByOne) {
  z3::context c;
  auto p = lateLoop(true);
  SolverLimits few;
  few.maxLinearProbes = 4;  // 106..109 refuted, then bisection: not a proof
  auto s = solveProblem(p, listSchedule(p), c, few);
  EXPECT_EQ(s.ii, kTrueII);
  EXPECT_FALSE(s.provenOptimal);
  SolverLimits many;
  many.maxLinearProbes = 64;  // 106..134 refuted one by one
  s = solveProblem(p, listSchedule(p), c, many);
  EXPECT_EQ(s.ii, kTrueII);
  EXPECT_TRUE(s.provenOptimal);
}

TEST(ModuloSolver, ListScheduleIsLegalAboveTheBound) {
  auto p = lateLoop(true);
  auto s = listSchedule(p);
  EXPECT_GE(s.ii, kTrueII);
  // The carried edge and the pipe hand-off, by hand.
  EXPECT_GE(s.start[0] + s.ii - s.start[2], 1);
  EXPECT_GE(s.start[1] - s.start[0], 100);
  EXPECT_GE(s.start[2] - s.start[1], 5);
}

namespace {

// a (MTE2, latency 300, ii 100) -> b (V, latency 40, ii 40): RAW 300, WAR
// b -> a 40 and WAW a -> a 300 through a's version variable (1..3).
SchedulingProblem twoStep() {
  SchedulingProblem p;
  p.isLoop = true;
  p.enableOffset = true;
  p.numStages = 3;
  p.latency = {300, 40};
  p.ii = {100, 40};
  p.pipeMask = {pipeMask(Pipe::MTE2), pipeMask(Pipe::V)};
  ProblemVersion v;
  v.bytes = 1024;
  v.maxVersions = 3;
  p.versions = {v};
  p.deps = {{0, 1, 300, 0, -1}, {1, 0, 40, 0, 0}, {0, 0, 300, 0, 0}};
  return p;
}

}  // namespace

// The refinement's bounds by closed forms: the cycle a -> b -> a needs
// 300 + 40 <= v·II; the iteration is at least a's latency plus b's span.
TEST(RefineBounds, VersionsAndIterationFromTheDifferenceConstraints) {
  auto p = twoStep();
  for (int64_t ii : {114, 120, 170, 200, 340, 400}) {
    SCOPED_TRACE(ii);
    int64_t need = std::max<int64_t>({1, (340 + ii - 1) / ii, (300 + ii - 1) / ii});
    EXPECT_EQ(minimumVersions(p, ii, -1), std::vector<int64_t>{std::min<int64_t>(need, 3)});
    EXPECT_EQ(iterationLowerBound(p, ii, -1, {3}), 300 + 40);
  }
  // Stage limit 0 at II 400: b starts by 399 and a at >= 0, still 340 apart.
  EXPECT_EQ(minimumVersions(p, 400, 0), std::vector<int64_t>{1});
  // Without the offset the window keeps a and b (different pipes) free.
  p.enableOffset = false;
  EXPECT_EQ(minimumVersions(p, 200, -1), std::vector<int64_t>{2});
}

// The solver's refined answer meets those bounds on this loop: the cycle
// needs 340 <= v·II with v <= 3 (the WAW self-loop 300 <= v·II is weaker), so
// II = max(100, ceil(340 / 3)) = 114; at that II the fewest versions are
// ceil(340 / 114) = 3 and the iteration is 300 + 40.
TEST(RefineBounds, SolverReachesTheBoundsOfTheRefinement) {
  z3::context c;
  auto p = twoStep();
  auto s = solveProblem(p, listSchedule(p), c, {});
  ASSERT_FALSE(s.fallback);
  EXPECT_EQ(s.ii, 114);
  EXPECT_TRUE(s.provenOptimal);
  EXPECT_EQ(s.versions, std::vector<int64_t>{3});
  int64_t first = std::min(s.start[0], s.start[1]);
  int64_t last = std::max(s.start[0] + 300, s.start[1] + 40);
  EXPECT_EQ(last - first, 340);
}

// lateLoop without enable_offset: A and C share MTE2 and C trails A by at
// least 100 + 5, so C runs after A inside one II window and must free the
// pipe before A's next start: T >= 105 + 30 = 135 (kTrueII), which order
// propagation finds without a solver; with enable_offset it does not apply.
TEST(PropagationBound, FixesTheForcedPipeOrder) {
  EXPECT_EQ(propagatedIIBound(lateLoop(false), iiLowerBound(lateLoop(false)), 1000), kTrueII);
  EXPECT_EQ(propagatedIIBound(lateLoop(true), 106, 1000), 106);
  // Never above the feasible II it is given.
  EXPECT_EQ(propagatedIIBound(lateLoop(false), 106, 120), 120);
}

TEST(ListFallback, KeepsSamePipeProgramOrderInAFlatBody) {
  // #1 (MTE2) waits 100 cycles for #0 (V); #2 (MTE2) is free at once. A list
  // scheduler free to reorder one pipe would start #2 first, but the lowering
  // issues a flat body in program order, and the checker rejects that
  // (issue 17 §2).
  SchedulingProblem p;
  p.isLoop = true;
  p.enableOffset = false;
  p.numStages = 2;
  p.latency = {100, 10, 10};
  p.ii = {100, 10, 10};
  p.pipeMask = {pipeMask(Pipe::V), pipeMask(Pipe::MTE2), pipeMask(Pipe::MTE2)};
  p.deps = {{0, 1, 100, 0, -1}};
  auto s = listSchedule(p);
  ASSERT_EQ(s.start.size(), 3u);
  EXPECT_GE(s.start[2] - s.start[1], 10) << s.start[1] << " " << s.start[2];
  EXPECT_LT(s.start[2] - s.start[1], s.ii);
  // With enable_offset the pipe may take them in either order.
  p.enableOffset = true;
  auto staged = listSchedule(p);
  EXPECT_LT(staged.start[2], staged.start[1]);
}

TEST(ModuloSolver, TheBudgetIsWorkSoTheAnswerDoesNotDependOnLoad) {
  // Issue 17 §2: the budget is Z3 resource units (kWorkPerMs per ms), not
  // wall time, so two solves of one problem with one small budget give the
  // same answer and spend the same work, however busy the machine is.
  SchedulingProblem p = lateLoop(false);
  for (int i = 0; i < 12; ++i) {  // a longer loop: more pairs on each pipe
    p.latency.push_back(7 + i);
    p.ii.push_back(3 + i % 4);
    p.pipeMask.push_back(pipeMask(i % 2 ? Pipe::MTE2 : Pipe::V));
    p.deps.push_back({2 + i, 3 + i, 5 + i % 3, 0, -1});
  }
  SolverLimits small;
  small.timeoutMs = 1;
  std::vector<ProblemSolution> runs;
  for (int k = 0; k < 2; ++k) {
    z3::context c;
    runs.push_back(solveProblem(p, listSchedule(p), c, small));
  }
  EXPECT_EQ(runs[0].ii, runs[1].ii);
  EXPECT_EQ(runs[0].start, runs[1].start);
  EXPECT_EQ(runs[0].provenOptimal, runs[1].provenOptimal);
  EXPECT_EQ(runs[0].stats.work, runs[1].stats.work);
  EXPECT_GT(runs[0].stats.work, 0);
  // The last check may overrun what was left, never by a whole budget.
  EXPECT_LE(runs[0].stats.work, 2 * kWorkPerMs);
}
