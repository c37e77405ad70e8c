// The sequential list schedule (see ListFallback.h).
#include "schedule/ListFallback.h"

#include <algorithm>

namespace tilesched::schedule {

namespace {

int64_t ceilDiv(int64_t a, int64_t b) { return a >= 0 ? (a + b - 1) / b : -((-a) / b); }

}  // namespace

std::vector<int64_t> neededVersions(const SchedulingProblem& p, const std::vector<int64_t>& start,
                                    int64_t ii) {
  std::vector<int64_t> out;
  for (const auto& v : p.versions) out.push_back(v.minVersions);
  if (ii <= 0) return out;
  for (const auto& d : p.deps) {
    if (d.versionVar < 0) continue;
    int64_t need = ceilDiv(d.latency + start[d.from] - start[d.to], ii);
    out[d.versionVar] = std::max(out[d.versionVar], need);
  }
  return out;
}

ProblemSolution listSchedule(const SchedulingProblem& p) {
  int n = p.numUnits();
  ProblemSolution out;
  out.found = true;
  out.fallback = true;
  out.start.assign(n, 0);
  int64_t freeAt = 0;
  for (int i = 0; i < n; ++i) {
    int64_t s = freeAt;
    for (const auto& d : p.deps)
      if (d.to == i && d.from < i && d.versionVar < 0 && d.distance == 0)
        s = std::max(s, out.start[d.from] + d.latency);
    out.start[i] = s;
    freeAt = s + p.span(i);
  }
  int64_t ii = std::max<int64_t>(freeAt, 1);
  if (p.isLoop) {
    // Cross-iteration dependencies at their smallest distance (>= 1 each).
    for (const auto& d : p.deps) {
      int64_t distance = d.versionVar >= 0 ? p.versions[d.versionVar].minVersions : d.distance;
      int64_t need = d.latency + out.start[d.from] - out.start[d.to];
      if (distance > 0) ii = std::max(ii, ceilDiv(need, distance));
    }
    for (const auto& e : p.exclusions) ii = std::max(ii, e.forwardLatency + e.reverseLatency);
  }
  out.ii = ii;
  out.versions = neededVersions(p, out.start, p.isLoop ? ii : 0);
  return out;
}

}  // namespace tilesched::schedule
