// The sequential list schedule (see ListFallback.h).
#include "schedule/ListFallback.h"

#include <algorithm>
#include <cstdlib>
#include <map>

#include "ir/IROperator.h"
#include "schedule/LowerBound.h"
#include "target/Hardware.h"

namespace tilesched::schedule {

namespace {

int64_t ceilDiv(int64_t a, int64_t b) { return a >= 0 ? (a + b - 1) / b : -((-a) / b); }

using ir::floorMod;

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

// The units placed so far at one II, indexed so that checking a start costs
// the unit's own dependencies and the few busy intervals near it on its
// pipes, not every placed unit (a loop of thousands of tasks, issue 11).
class Placement {
 public:
  Placement(const SchedulingProblem& p, int64_t ii, const std::vector<int64_t>& versions)
      : p_(p),
        ii_(ii),
        versions_(versions),
        placed_(p.numUnits(), false),
        start_(p.numUnits(), 0),
        depsOf_(p.numUnits()),
        incoming_(p.numUnits()),
        exclusionsOf_(p.numUnits()),
        pipes_(kAllPipes.size()) {
    for (size_t k = 0; k < p.deps.size(); ++k) {
      const auto& d = p.deps[k];
      depsOf_[d.from].push_back(static_cast<int>(k));
      if (d.to != d.from) depsOf_[d.to].push_back(static_cast<int>(k));
      incoming_[d.to].push_back(static_cast<int>(k));
    }
    for (size_t k = 0; k < p.exclusions.size(); ++k) {
      exclusionsOf_[p.exclusions[k].a].push_back(static_cast<int>(k));
      if (p.exclusions[k].b != p.exclusions[k].a)
        exclusionsOf_[p.exclusions[k].b].push_back(static_cast<int>(k));
    }
  }

  bool placed(int i) const { return placed_[i]; }
  const std::vector<int64_t>& starts() const { return start_; }
  const std::vector<int>& incoming(int i) const { return incoming_[i]; }

  void place(int i, int64_t t) {
    start_[i] = t;
    placed_[i] = true;
    for (size_t k = 0; k < kAllPipes.size(); ++k) {
      if (!(p_.pipeMask[i] & pipeMask(kAllPipes[k]))) continue;
      PipeIndex& pipe = pipes_[k];
      pipe.byPhase.emplace(floorMod(t, ii_), i);
      pipe.minStart = pipe.any ? std::min(pipe.minStart, t) : t;
      pipe.maxStart = pipe.any ? std::max(pipe.maxStart, t) : t;
      pipe.maxLength = std::max(pipe.maxLength, p_.ii[i]);
      pipe.any = true;
    }
  }

  // Does start `t` for unit `i` agree with every already placed unit?
  bool fits(int i, int64_t t) const {
    if (t < 0) return false;
    auto distance = [&](const ProblemDep& d) {
      return d.versionVar >= 0 ? versions_[d.versionVar] : d.distance;
    };
    for (int k : depsOf_[i]) {
      const auto& d = p_.deps[k];
      int64_t su = d.from == i ? t : (placed_[d.from] ? start_[d.from] : -1);
      int64_t sw = d.to == i ? t : (placed_[d.to] ? start_[d.to] : -1);
      if (su < 0 || sw < 0) continue;
      if (sw - su < d.latency - ii_ * distance(d)) return false;
    }
    for (size_t k = 0; k < kAllPipes.size(); ++k) {
      if (!(p_.pipeMask[i] & pipeMask(kAllPipes[k])) || !pipes_[k].any) continue;
      const PipeIndex& pipe = pipes_[k];
      if (!p_.enableOffset && (t - pipe.minStart >= ii_ || pipe.maxStart - t >= ii_)) return false;
      if (!pipeFree(pipe, i, t)) return false;
    }
    // A flat body is issued in program order (units are placed in it): a
    // later unit of a pipe starts after every earlier one's busy interval.
    if (p_.isLoop && !p_.enableOffset)
      for (int a = 0; a < i; ++a)
        if (placed_[a] && p_.sharePipe(a, i) && t - start_[a] < p_.ii[a]) return false;
    for (int k : exclusionsOf_[i]) {
      const auto& e = p_.exclusions[k];
      int other = e.a == i ? e.b : e.a;
      if (!placed_[other]) continue;
      int64_t sa = e.a == i ? t : start_[e.a], sb = e.b == i ? t : start_[e.b];
      bool aFirst = sb - sa >= e.forwardLatency && sa + ii_ - sb >= e.reverseLatency;
      bool bFirst = sa - sb >= e.reverseLatency && sb + ii_ - sa >= e.forwardLatency;
      if (!aFirst && !bFirst) return false;
    }
    for (const auto& g : p_.sameStage) {
      if (g.versionVar >= 0 && versions_[g.versionVar] <= 1) continue;
      if (std::find(g.units.begin(), g.units.end(), i) == g.units.end()) continue;
      for (int a : g.units)
        if (a != i && placed_[a] && start_[a] / ii_ != t / ii_) return false;
    }
    return true;
  }

 private:
  struct PipeIndex {
    std::multimap<int64_t, int> byPhase;  // placed units by start mod II
    int64_t minStart = 0, maxStart = 0, maxLength = 0;
    bool any = false;
  };

  // No placed unit of `pipe` has a busy interval meeting i's [t, t + ii_i)
  // on the circle of length II. Only units whose phase lies within the
  // longest busy interval before t mod II, or within i's after it, can.
  bool pipeFree(const PipeIndex& pipe, int i, int64_t t) const {
    auto clash = [&](int a) {
      if (a == i) return false;
      int64_t gap = floorMod(t - start_[a], ii_);  // i's busy start after a's
      return gap < p_.ii[a] || ii_ - gap < p_.ii[i];
    };
    auto scan = [&](int64_t from, int64_t to) {  // phases in [from, to]
      for (auto it = pipe.byPhase.lower_bound(from); it != pipe.byPhase.end() && it->first <= to;
           ++it)
        if (clash(it->second)) return false;
      return true;
    };
    int64_t phase = floorMod(t, ii_);
    int64_t lo = phase - pipe.maxLength, hi = phase + p_.ii[i];
    if (hi - lo >= ii_) return scan(0, ii_ - 1);
    if (!scan(std::max<int64_t>(lo, 0), std::min(hi, ii_ - 1))) return false;
    if (lo < 0 && !scan(lo + ii_, ii_ - 1)) return false;
    if (hi >= ii_ && !scan(0, hi - ii_)) return false;
    return true;
  }

  const SchedulingProblem& p_;
  int64_t ii_;
  const std::vector<int64_t>& versions_;
  std::vector<bool> placed_;
  std::vector<int64_t> start_;
  std::vector<std::vector<int>> depsOf_, incoming_, exclusionsOf_;
  std::vector<PipeIndex> pipes_;
};

// Modulo list scheduling at a fixed II: units in program order, each at the
// first start from its producers' ready time where it fits every placed unit.
bool moduloListSchedule(const SchedulingProblem& p, int64_t ii,
                        const std::vector<int64_t>& versions, std::vector<int64_t>& start) {
  int n = p.numUnits();
  Placement placement(p, ii, versions);
  const auto& starts = placement.starts();
  for (int i = 0; i < n; ++i) {
    if (p.pipeMask[i] && p.ii[i] > ii) return false;
    int64_t ready = 0;
    for (int k : placement.incoming(i)) {
      const auto& d = p.deps[k];
      if (d.from != i && placement.placed(d.from) && d.versionVar < 0 && d.distance == 0)
        ready = std::max(ready, starts[d.from] + d.latency);
    }
    // Candidates: the ready time and the ends of placed busy intervals on a
    // shared pipe, folded to the first II after `ready`.
    std::vector<int64_t> candidates{ready};
    for (int a = 0; a < n; ++a)
      if (placement.placed(a) && p.sharePipe(a, i)) {
        candidates.push_back(ready + floorMod(starts[a] + p.ii[a] - ready, ii));
        // In a flat body the pipe's previous unit must be done first.
        if (!p.enableOffset) candidates.push_back(std::max(ready, starts[a] + p.ii[a]));
      }
    for (const auto& e : p.exclusions)
      for (int a : {e.a, e.b})
        if (a != i && placement.placed(a))
          candidates.push_back(std::max(ready, starts[a] + p.latency[a]));
    std::sort(candidates.begin(), candidates.end());
    bool done = false;
    for (int64_t t : candidates)
      if (placement.fits(i, t)) {
        placement.place(i, t);
        done = true;
        break;
      }
    if (!done) return false;
  }
  start = starts;
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
    // The staged lowering's program order (Problem.h, programOrderStages).
    if (p.isLoop && p.enableOffset && p.programOrderStages && d.from >= d.to)
      need = std::max(need, 1 + ir::floorDiv(start[d.from], ii) - ir::floorDiv(start[d.to], ii));
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
    // An owner exclusion with an earlier unit: that one goes first, and i
    // waits for its hand-off latency (which may exceed its pipe time).
    for (const auto& e : p.exclusions) {
      if (e.b == i && e.a < i) s = std::max(s, out.start[e.a] + e.forwardLatency);
      if (e.a == i && e.b < i) s = std::max(s, out.start[e.b] + e.reverseLatency);
    }
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
    // The wrap-around hand-off: from the later owner back to the earlier
    // one of the next iteration.
    for (const auto& e : p.exclusions) {
      bool aFirst = e.a < e.b;
      int64_t gap = aFirst ? out.start[e.b] - out.start[e.a] : out.start[e.a] - out.start[e.b];
      ii = std::max({ii, e.forwardLatency + e.reverseLatency,
                     gap + (aFirst ? e.reverseLatency : e.forwardLatency)});
    }
  }
  out.ii = ii;
  out.versions = neededVersions(p, out.start, p.isLoop ? ii : 0);
  return out;
}

}  // namespace tilesched::schedule
