// Lower bounds (see LowerBound.h). The recurrence bound is the smallest II for
// which the graph with edge weights latency - II·distance has no positive
// cycle, found by bisection with Bellman-Ford.
#include "schedule/LowerBound.h"

#include <algorithm>

#include "target/Hardware.h"

namespace tilesched::schedule {

namespace {

int64_t maxDistance(const SchedulingProblem& p, const ProblemDep& d) {
  return d.versionVar >= 0 ? p.versions[d.versionVar].maxVersions : d.distance;
}

// Longest-path relaxation from a virtual source: true when a positive cycle
// exists with weights latency - ii·distance.
bool hasPositiveCycle(const SchedulingProblem& p, int64_t ii) {
  int n = p.numUnits();
  std::vector<int64_t> dist(n, 0);
  for (int round = 0; round <= n; ++round) {
    bool changed = false;
    auto relax = [&](int from, int to, int64_t w) {
      if (dist[from] + w > dist[to]) {
        dist[to] = dist[from] + w;
        changed = true;
      }
    };
    for (const auto& d : p.deps) relax(d.from, d.to, d.latency - ii * maxDistance(p, d));
    // The window rule: |s_a - s_b| <= II - 1 on a shared pipe.
    if (p.isLoop && !p.enableOffset)
      for (int a = 0; a < n; ++a)
        for (int b = a + 1; b < n; ++b)
          if (p.sharePipe(a, b)) {
            relax(a, b, 1 - ii);
            relax(b, a, 1 - ii);
          }
    if (!changed) return false;
  }
  return true;
}

}  // namespace

int64_t resourceBound(const SchedulingProblem& p) {
  int64_t best = 1;
  for (Pipe pipe : kAllPipes) {
    int64_t sum = 0;
    for (int i = 0; i < p.numUnits(); ++i)
      if (p.pipeMask[i] & pipeMask(pipe)) sum += p.ii[i];
    best = std::max(best, sum);
  }
  for (int i = 0; i < p.numUnits(); ++i)
    if (p.pipeMask[i]) best = std::max(best, p.ii[i]);
  return best;
}

int64_t recurrenceBound(const SchedulingProblem& p) {
  int64_t hi = 2;
  for (const auto& d : p.deps) hi += std::max<int64_t>(0, d.latency);
  if (hasPositiveCycle(p, hi)) return hi;  // a zero-distance cycle: no II helps
  if (!hasPositiveCycle(p, 1)) return 1;
  int64_t lo = 1;  // infeasible
  while (hi - lo > 1) {
    int64_t mid = lo + (hi - lo) / 2;
    if (hasPositiveCycle(p, mid))
      lo = mid;
    else
      hi = mid;
  }
  return hi;
}

int64_t iiLowerBound(const SchedulingProblem& p) {
  int64_t best = std::max(resourceBound(p), recurrenceBound(p));
  for (const auto& e : p.exclusions) best = std::max(best, e.forwardLatency + e.reverseLatency);
  return std::max<int64_t>(best, 1);
}

int64_t makespanLowerBound(const SchedulingProblem& p) {
  int n = p.numUnits();
  int64_t best = resourceBound(p);
  for (int i = 0; i < n; ++i) best = std::max(best, p.span(i));
  // Same-iteration dependencies go forward in program order: one pass.
  std::vector<int64_t> earliest(n, 0);
  for (int i = 0; i < n; ++i) {
    for (const auto& d : p.deps)
      if (d.to == i && d.from < i && d.versionVar < 0 && d.distance == 0)
        earliest[i] = std::max(earliest[i], earliest[d.from] + d.latency);
    best = std::max(best, earliest[i] + p.span(i));
  }
  return best;
}

}  // namespace tilesched::schedule
