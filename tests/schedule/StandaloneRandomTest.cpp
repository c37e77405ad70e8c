// Random small problems, as a caller of `tilesched solve` could give them:
// every answer passes the problem checker, and every "proven optimal" claim
// is tested against an exhaustive search for a schedule with a smaller II
// (or makespan), which must find none. The search is bounded (starts below
// three IIs), so it can miss a schedule but never invent one: a failure is
// always a real counterexample to the proof.
#include <gtest/gtest.h>

#include <random>

#include "schedule/ProblemCheck.h"
#include "schedule/StandaloneSolve.h"

using namespace tilesched::schedule;

namespace {

SchedulingProblem randomProblem(std::mt19937& rng, bool loop) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const uint32_t pipes[] = {2, 16, 4, 2 | 16};
  SchedulingProblem p;
  p.isLoop = loop;
  int n = pick(2, 3);
  p.enableOffset = loop && pick(0, 1);
  p.numStages = pick(1, 3);
  for (int i = 0; i < n; ++i) {
    p.latency.push_back(pick(0, 5));
    p.ii.push_back(pick(1, 3));
    p.pipeMask.push_back(pipes[pick(0, 3)]);
  }
  int buffers = loop ? pick(0, 1) : 0;
  for (int k = 0; k < buffers; ++k) {
    ProblemVersion v;
    v.bytes = 10;
    v.maxVersions = p.numStages;
    p.versions.push_back(v);
    if (pick(0, 1)) p.memoryGroups.push_back({{}, pick(10, 30), {k}});
  }
  for (int e = pick(1, 3); e > 0; --e) {
    ProblemDep d;
    d.from = pick(0, n - 1);
    d.to = pick(0, n - 1);
    d.latency = pick(0, 5);
    if (loop && d.to <= d.from) {
      // A back edge: a fixed distance or a buffer's version count.
      if (buffers && pick(0, 1))
        d.versionVar = 0;
      else
        d.distance = 1;
    }
    if (!loop && d.to <= d.from) std::swap(d.from, d.to);
    if (d.from == d.to && d.versionVar < 0 && d.distance == 0) continue;
    p.deps.push_back(d);
  }
  if (n >= 2 && pick(0, 3) == 0) p.exclusions.push_back({0, 1, pick(0, 4), pick(0, 4)});
  // The caller constraints of TileLang's interface, now and then.
  if (pick(0, 4) == 0) p.phaseOrder.push_back({0, 1});
  if (loop && pick(0, 4) == 0) p.stageOrder.push_back({1, 0});
  if (loop && pick(0, 5) == 0)
    for (int i = 0; i < n; ++i) p.fixedStages.push_back(p.enableOffset ? pick(0, 1) : 0);
  return p;
}

// Some schedule with II (or makespan) t in the bounded space, or none.
bool existsWithin(const SchedulingProblem& p, int64_t t) {
  int n = p.numUnits();
  int64_t limit = p.isLoop ? 3 * t : t;
  std::vector<int64_t> versionChoices = {1};
  if (!p.versions.empty())
    for (int64_t v = 2; v <= p.versions[0].maxVersions; ++v) versionChoices.push_back(v);
  ProblemSolution s;
  s.ii = t;
  s.start.assign(n, 0);
  for (int64_t v : versionChoices) {
    s.versions.assign(p.versions.size(), v);
    std::vector<int64_t> index(n, 0);
    while (true) {
      s.start = index;
      bool fits = true;
      if (!p.isLoop)
        for (int i = 0; i < n; ++i) fits = fits && s.start[i] + p.span(i) <= t;
      if (fits && checkProblemSolution(p, s).empty()) return true;
      int i = 0;
      while (i < n && ++index[i] >= limit) index[i++] = 0;
      if (i == n) break;
    }
  }
  return false;
}

void checkOne(const SchedulingProblem& p, unsigned seed) {
  StandaloneResult r = solveStandalone(p, 500);
  if (!r.ok) {
    // Only a proof of infeasibility may refuse, or (with the caller's stage
    // and phase constraints) a search that found nothing: then there is no
    // small schedule either.
    if (!p.constrainsStages() && (p.isLoop || p.phaseOrder.empty())) {
      EXPECT_FALSE(provablyInfeasible(p).empty()) << "seed " << seed << ": " << r.error;
    } else if (provablyInfeasible(p).empty()) {
      for (int64_t t = 1; t < 9; ++t)
        EXPECT_FALSE(existsWithin(p, t))
            << "seed " << seed << ": " << r.error << " but II " << t << " has a schedule";
    }
    return;
  }
  ASSERT_TRUE(checkProblemSolution(p, r.solution).empty()) << "seed " << seed;
  if (!r.solution.provenOptimal) return;
  int64_t best = r.solution.ii;
  for (int64_t t = 1; t < std::min<int64_t>(best, 9); ++t)
    EXPECT_FALSE(existsWithin(p, t))
        << "seed " << seed << ": proven optimal at " << best << " but " << t << " has a schedule";
}

}  // namespace

TEST(StandaloneRandom, LoopsAreCheckedAndTheirProofsHold) {
  for (unsigned seed = 0; seed < 400; ++seed) {
    std::mt19937 rng(seed);
    checkOne(randomProblem(rng, true), seed);
  }
}

TEST(StandaloneRandom, StraightLinesAreCheckedAndTheirProofsHold) {
  for (unsigned seed = 1000; seed < 1400; ++seed) {
    std::mt19937 rng(seed);
    checkOne(randomProblem(rng, false), seed);
  }
}
