// The search of ModuloSolver on hand-built problems (SPEC §5): a loop whose
// II lies well above its lower bound, solved with II as a variable (no
// enable_offset) and by constant-II probes (enable_offset), and what each may
// claim as proven.
#include <gtest/gtest.h>
#include <z3++.h>

#include "schedule/ListFallback.h"
#include "schedule/LowerBound.h"
#include "schedule/ModuloSolver.h"

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
