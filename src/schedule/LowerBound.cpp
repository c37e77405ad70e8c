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

// The recurrence graph at `ii`: every dependency with weight latency -
// ii·distance and, without enable_offset, the window rule |s_a - s_b| <= II -
// 1 on a shared pipe (weight 1 - ii both ways).
std::vector<RecurrenceEdge> recurrenceEdges(const SchedulingProblem& p) {
  std::vector<RecurrenceEdge> edges;
  for (size_t i = 0; i < p.deps.size(); ++i) {
    const auto& d = p.deps[i];
    edges.push_back({d.from, d.to, d.latency, maxDistance(p, d), static_cast<int>(i)});
  }
  int n = p.numUnits();
  if (p.isLoop && !p.enableOffset)
    for (int a = 0; a < n; ++a)
      for (int b = a + 1; b < n; ++b)
        if (p.sharePipe(a, b)) {
          edges.push_back({a, b, 1, 1, -1});
          edges.push_back({b, a, 1, 1, -1});
        }
  return edges;
}

// Longest-path relaxation from a virtual source with weights latency -
// ii·distance. Returns true when a positive cycle exists (still relaxing in
// round n); with `cycle`, also one such cycle, its edges in order: the first
// cycle the predecessor graph shows (every cycle of it is positive), found by
// relaxing on until it appears.
bool positiveCycle(const SchedulingProblem& p, const std::vector<RecurrenceEdge>& edges, int64_t ii,
                   std::vector<RecurrenceEdge>* cycle = nullptr) {
  int n = p.numUnits();
  std::vector<int64_t> dist(n, 0);
  std::vector<int> pred(n, -1);  // the edge that last raised each unit
  auto relaxRound = [&] {
    bool changed = false;
    for (size_t e = 0; e < edges.size(); ++e) {
      const auto& edge = edges[e];
      int64_t w = edge.latency - ii * edge.distance;
      if (dist[edge.from] + w > dist[edge.to]) {
        dist[edge.to] = dist[edge.from] + w;
        pred[edge.to] = static_cast<int>(e);
        changed = true;
      }
    }
    return changed;
  };
  for (int round = 0; round <= n; ++round)
    if (!relaxRound()) return false;
  if (!cycle) return true;
  // A cycle of the predecessor graph: walk back from each unit.
  auto predCycle = [&]() -> std::vector<RecurrenceEdge> {
    std::vector<int> seenIn(n, -1);
    for (int start = 0; start < n; ++start) {
      int v = start;
      while (v >= 0 && seenIn[v] < 0) {
        seenIn[v] = start;
        v = pred[v] >= 0 ? edges[pred[v]].from : -1;
      }
      if (v < 0 || seenIn[v] != start) continue;
      std::vector<RecurrenceEdge> out;
      int u = v;
      do {
        out.push_back(edges[pred[u]]);
        u = edges[pred[u]].from;
      } while (u != v);
      std::reverse(out.begin(), out.end());
      return out;
    }
    return {};
  };
  for (int extra = 0; extra <= 4 * n + 4; ++extra) {
    *cycle = predCycle();
    if (!cycle->empty()) return true;
    relaxRound();
  }
  return true;
}

// The same answer as positiveCycle(p, recurrenceEdges(p), ii) in O(rounds ·
// (deps + units)): the window pairs of a pipe (a -> b for every other unit b,
// weight 1 - ii) are relaxed at once from the pipe's largest and second
// largest distance, and every 8 rounds a cycle of the predecessor graph —
// which only a positive cycle can make — ends the search early.
bool hasPositiveCycle(const SchedulingProblem& p, int64_t ii) {
  int n = p.numUnits();
  std::vector<std::vector<int>> windows;
  if (p.isLoop && !p.enableOffset)
    for (Pipe pipe : kAllPipes) {
      std::vector<int> units;
      for (int i = 0; i < n; ++i)
        if (p.pipeMask[i] & pipeMask(pipe)) units.push_back(i);
      if (units.size() >= 2) windows.push_back(std::move(units));
    }
  std::vector<int64_t> dist(n, 0);
  std::vector<int> pred(n, -1);  // the unit that last raised each unit
  auto relaxRound = [&] {
    bool changed = false;
    for (const auto& d : p.deps) {
      int64_t w = d.latency - ii * maxDistance(p, d);
      if (dist[d.from] + w > dist[d.to]) {
        dist[d.to] = dist[d.from] + w;
        pred[d.to] = d.from;
        changed = true;
      }
    }
    for (const auto& units : windows) {
      int best = -1, second = -1;
      for (int u : units) {
        if (best < 0 || dist[u] > dist[best]) {
          second = best;
          best = u;
        } else if (second < 0 || dist[u] > dist[second]) {
          second = u;
        }
      }
      int64_t bestDist = dist[best], secondDist = dist[second];
      for (int u : units) {
        int from = u == best ? second : best;
        int64_t reach = (u == best ? secondDist : bestDist) + 1 - ii;
        if (reach > dist[u]) {
          dist[u] = reach;
          pred[u] = from;
          changed = true;
        }
      }
    }
    return changed;
  };
  auto predCycle = [&] {
    std::vector<int> seenIn(n, -1);
    for (int start = 0; start < n; ++start) {
      int v = start;
      while (v >= 0 && seenIn[v] < 0) {
        seenIn[v] = start;
        v = pred[v];
      }
      if (v >= 0 && seenIn[v] == start) return true;
    }
    return false;
  };
  for (int round = 0; round <= n; ++round) {
    if (!relaxRound()) return false;
    if (round % 8 == 7 && predCycle()) return true;
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

int64_t IIBoundTerms::bound() const {
  return std::max<int64_t>({resource, recurrence, exclusion, 1});
}

IIBoundTerms iiLowerBoundTerms(const SchedulingProblem& p) {
  IIBoundTerms t;
  t.resource = resourceBound(p);
  int64_t busiest = 0;
  for (Pipe pipe : kAllPipes) {
    int64_t sum = 0;
    for (int i = 0; i < p.numUnits(); ++i)
      if (p.pipeMask[i] & pipeMask(pipe)) sum += p.ii[i];
    if (sum > busiest) busiest = sum, t.resourcePipe = pipe;
  }
  t.recurrence = recurrenceBound(p);
  // Large lists: the critical cycle would need every window pair as an edge.
  if (t.recurrence > 1 && p.numUnits() <= kMaxSolverUnits) {
    auto edges = recurrenceEdges(p);
    // A zero-distance cycle is positive at every II (recurrenceBound's cap).
    if (!positiveCycle(p, edges, t.recurrence - 1, &t.criticalCycle))
      positiveCycle(p, edges, t.recurrence, &t.criticalCycle);
  }
  for (size_t i = 0; i < p.exclusions.size(); ++i) {
    int64_t both = p.exclusions[i].forwardLatency + p.exclusions[i].reverseLatency;
    if (both > t.exclusion) t.exclusion = both, t.exclusionIndex = static_cast<int>(i);
  }
  return t;
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
