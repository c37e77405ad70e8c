// The sequential list schedule (see ListFallback.h).
#include "schedule/ListFallback.h"

#include <algorithm>
#include <cstdlib>

#include "schedule/LowerBound.h"

namespace tilesched::schedule {

namespace {

int64_t ceilDiv(int64_t a, int64_t b) { return a >= 0 ? (a + b - 1) / b : -((-a) / b); }

int64_t floorMod(int64_t a, int64_t m) {
  int64_t r = a % m;
  return r < 0 ? r + m : r;
}

// Versions the heuristic may use: every variable at its bound when each
// memory group holds that, else at its minimum.
std::vector<int64_t> heuristicVersions(const SchedulingProblem& p) {
  std::vector<int64_t> atMax;
  for (const auto& v : p.versions) atMax.push_back(v.maxVersions);
  for (const auto& g : p.memoryGroups) {
    int64_t used = 0;
    for (int k : g.versions) used += atMax[k] * p.versions[k].bytes;
    if (used > g.capacity) {
      atMax.clear();
      for (const auto& v : p.versions) atMax.push_back(v.minVersions);
      break;
    }
  }
  return atMax;
}

// Does start `t` for unit `i` agree with every already placed unit?
bool fits(const SchedulingProblem& p, const std::vector<int64_t>& start,
          const std::vector<bool>& placed, const std::vector<int64_t>& versions, int i, int64_t t,
          int64_t ii) {
  if (t < 0) return false;
  auto distance = [&](const ProblemDep& d) {
    return d.versionVar >= 0 ? versions[d.versionVar] : d.distance;
  };
  for (const auto& d : p.deps) {
    int64_t su = d.from == i ? t : (placed[d.from] ? start[d.from] : -1);
    int64_t sw = d.to == i ? t : (placed[d.to] ? start[d.to] : -1);
    if ((d.from != i && d.to != i) || su < 0 || sw < 0) continue;
    if (sw - su < d.latency - ii * distance(d)) return false;
  }
  for (int a = 0; a < p.numUnits(); ++a) {
    if (a == i || !placed[a] || !p.sharePipe(a, i)) continue;
    int64_t gap = floorMod(t - start[a], ii);  // i's busy start after a's
    if (gap < p.ii[a] || ii - gap < p.ii[i]) return false;
    if (!p.enableOffset && std::llabs(t - start[a]) >= ii) return false;
  }
  for (const auto& e : p.exclusions) {
    int other = e.a == i ? e.b : (e.b == i ? e.a : -1);
    if (other < 0 || !placed[other]) continue;
    int64_t sa = e.a == i ? t : start[e.a], sb = e.b == i ? t : start[e.b];
    bool aFirst = sb - sa >= e.forwardLatency && sa + ii - sb >= e.reverseLatency;
    bool bFirst = sa - sb >= e.reverseLatency && sb + ii - sa >= e.forwardLatency;
    if (!aFirst && !bFirst) return false;
  }
  for (const auto& g : p.sameStage) {
    if (g.versionVar >= 0 && versions[g.versionVar] <= 1) continue;
    if (std::find(g.units.begin(), g.units.end(), i) == g.units.end()) continue;
    for (int a : g.units)
      if (a != i && placed[a] && start[a] / ii != t / ii) return false;
  }
  return true;
}

// Modulo list scheduling at a fixed II: units in program order, each at the
// first start from its producers' ready time where it fits every placed unit.
bool moduloListSchedule(const SchedulingProblem& p, int64_t ii,
                        const std::vector<int64_t>& versions, std::vector<int64_t>& start) {
  int n = p.numUnits();
  start.assign(n, 0);
  std::vector<bool> placed(n, false);
  for (int i = 0; i < n; ++i) {
    if (p.pipeMask[i] && p.ii[i] > ii) return false;
    int64_t ready = 0;
    for (const auto& d : p.deps)
      if (d.to == i && d.from != i && placed[d.from] && d.versionVar < 0 && d.distance == 0)
        ready = std::max(ready, start[d.from] + d.latency);
    // Candidates: the ready time and the ends of placed busy intervals on a
    // shared pipe, folded to the first II after `ready`.
    std::vector<int64_t> candidates{ready};
    for (int a = 0; a < n; ++a)
      if (placed[a] && p.sharePipe(a, i))
        candidates.push_back(ready + floorMod(start[a] + p.ii[a] - ready, ii));
    for (const auto& e : p.exclusions)
      for (int a : {e.a, e.b})
        if (a != i && placed[a]) candidates.push_back(std::max(ready, start[a] + p.latency[a]));
    std::sort(candidates.begin(), candidates.end());
    bool done = false;
    for (int64_t t : candidates)
      if (fits(p, start, placed, versions, i, t, ii)) {
        start[i] = t;
        placed[i] = true;
        done = true;
        break;
      }
    if (!done) return false;
  }
  return true;
}

}  // namespace

ProblemSolution listSchedule(const SchedulingProblem& p) {
  ProblemSolution sequential = sequentialSchedule(p);
  if (!p.isLoop || p.numUnits() == 0) return sequential;
  std::vector<int64_t> versions = heuristicVersions(p), start;
  int64_t lb = iiLowerBound(p);
  for (int64_t ii = lb; ii < sequential.ii; ii = std::max(ii + 1, ii + ii / 16)) {
    if (!moduloListSchedule(p, ii, versions, start)) continue;
    ProblemSolution out = sequential;
    out.ii = ii;
    out.start = start;
    out.versions = neededVersions(p, start, ii);
    return out;
  }
  return sequential;
}

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

ProblemSolution sequentialSchedule(const SchedulingProblem& p) {
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
