// The terms of the II lower bound that `tilesched explain` reports
// (LowerBound.h iiLowerBoundTerms): each term with what produces it, on
// hand-built problems whose bounds are closed forms.
#include <gtest/gtest.h>

#include "schedule/LowerBound.h"

using namespace tilesched;
using namespace tilesched::schedule;

namespace {

SchedulingProblem base(bool enableOffset) {
  SchedulingProblem p;
  p.isLoop = true;
  p.enableOffset = enableOffset;
  return p;
}

}  // namespace

TEST(LowerBoundTerms, ResourceNamesTheBusiestPipe) {
  SchedulingProblem p = base(true);
  p.latency = {10, 20, 7};
  p.ii = {10, 20, 7};
  p.pipeMask = {pipeMask(Pipe::MTE2), pipeMask(Pipe::V), pipeMask(Pipe::MTE2)};
  IIBoundTerms t = iiLowerBoundTerms(p);
  EXPECT_EQ(t.resource, 20);
  ASSERT_TRUE(t.resourcePipe);
  EXPECT_EQ(*t.resourcePipe, Pipe::V);
  EXPECT_EQ(t.bound(), iiLowerBound(p));
  EXPECT_TRUE(t.criticalCycle.empty());
}

TEST(LowerBoundTerms, RecurrenceGivesItsCriticalCycle) {
  // Two cycles: 0 -> 1 -> 0 (latency 50 + 31 over distance 2: II >= 41) and
  // 1 -> 2 -> 1 (latency 30 + 30 over distance 3: II >= 20). The first binds.
  SchedulingProblem p = base(true);
  p.latency = {1, 1, 1};
  p.ii = {1, 1, 1};
  p.pipeMask = {pipeMask(Pipe::MTE2), pipeMask(Pipe::V), pipeMask(Pipe::MTE3)};
  ProblemVersion v;
  v.maxVersions = 2;
  p.versions = {v};
  p.deps = {{0, 1, 50, 0, -1}, {1, 0, 31, 0, 0}, {1, 2, 30, 0, -1}, {2, 1, 30, 3, -1}};
  IIBoundTerms t = iiLowerBoundTerms(p);
  EXPECT_EQ(t.recurrence, (50 + 31 + 1) / 2);
  EXPECT_EQ(t.bound(), iiLowerBound(p));
  ASSERT_EQ(t.criticalCycle.size(), 2u);
  int64_t latency = 0, distance = 0;
  for (size_t i = 0; i < t.criticalCycle.size(); ++i) {
    const auto& e = t.criticalCycle[i];
    EXPECT_EQ(e.to, t.criticalCycle[(i + 1) % 2].from);
    EXPECT_TRUE(e.dep == 0 || e.dep == 1) << e.dep;
    latency += e.latency;
    distance += e.distance;
  }
  EXPECT_EQ(latency, 81);
  EXPECT_EQ(distance, 2);  // the version variable at its upper bound
}

TEST(LowerBoundTerms, WindowEdgesCloseACycleWithoutEnableOffset) {
  // 0 and 2 share MTE2; 0 -> 1 -> 2 same-iteration latencies 40 + 25: the
  // window edge 2 -> 0 (latency 1, distance 1) makes II >= 66.
  SchedulingProblem p = base(false);
  p.latency = {1, 1, 1};
  p.ii = {1, 1, 1};
  p.pipeMask = {pipeMask(Pipe::MTE2), pipeMask(Pipe::V), pipeMask(Pipe::MTE2)};
  p.deps = {{0, 1, 40, 0, -1}, {1, 2, 25, 0, -1}};
  IIBoundTerms t = iiLowerBoundTerms(p);
  EXPECT_EQ(t.recurrence, 40 + 25 + 1);
  ASSERT_EQ(t.criticalCycle.size(), 3u);
  int windows = 0;
  for (const auto& e : t.criticalCycle) windows += e.dep < 0;
  EXPECT_EQ(windows, 1);
}

TEST(LowerBoundTerms, ExclusionNamesTheLargestPair) {
  SchedulingProblem p = base(true);
  p.latency = {5, 5, 5};
  p.ii = {5, 5, 5};
  p.pipeMask = {pipeMask(Pipe::MTE2), pipeMask(Pipe::V), pipeMask(Pipe::MTE3)};
  p.exclusions = {{0, 1, 30, 12}, {1, 2, 40, 9}};
  IIBoundTerms t = iiLowerBoundTerms(p);
  EXPECT_EQ(t.exclusion, 49);
  EXPECT_EQ(t.exclusionIndex, 1);
  EXPECT_EQ(t.bound(), 49);
  EXPECT_EQ(iiLowerBound(p), 49);
}
