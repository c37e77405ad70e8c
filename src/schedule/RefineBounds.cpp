// Difference-constraint bounds for the refinement (see RefineBounds.h):
// Bellman-Ford for positive cycles, Floyd-Warshall for the longest paths.
#include "schedule/RefineBounds.h"

#include <algorithm>
#include <limits>

namespace tilesched::schedule {

namespace {

struct Edge {
  int from, to;
  int64_t weight;  // s_to - s_from >= weight
};

constexpr int64_t kNone = std::numeric_limits<int64_t>::min() / 4;

// Node n is the origin (s = 0).
std::vector<Edge> edges(const SchedulingProblem& p, int64_t ii, int64_t stageLimit,
                        const std::vector<int64_t>& versions) {
  int n = p.numUnits();
  std::vector<Edge> out;
  for (const auto& d : p.deps) {
    int64_t distance = d.versionVar >= 0 ? versions[d.versionVar] : d.distance;
    out.push_back({d.from, d.to, d.latency - ii * distance});
  }
  if (!p.enableOffset)
    for (int a = 0; a < n; ++a)
      for (int b = 0; b < n; ++b)
        if (a != b && p.sharePipe(a, b)) out.push_back({a, b, 1 - ii});
  for (int i = 0; i < n; ++i) {
    out.push_back({n, i, 0});
    if (stageLimit >= 0) out.push_back({i, n, -((stageLimit + 1) * ii - 1)});
  }
  return out;
}

bool hasPositiveCycle(int nodes, const std::vector<Edge>& es) {
  std::vector<int64_t> dist(nodes, 0);
  for (int round = 0; round <= nodes; ++round) {
    bool changed = false;
    for (const auto& e : es)
      if (dist[e.from] + e.weight > dist[e.to]) {
        dist[e.to] = dist[e.from] + e.weight;
        changed = true;
      }
    if (!changed) return false;
  }
  return true;
}

}  // namespace

std::vector<int64_t> minimumVersions(const SchedulingProblem& p, int64_t ii, int64_t stageLimit) {
  std::vector<int64_t> caps, out;
  for (const auto& v : p.versions) caps.push_back(v.maxVersions);
  for (size_t k = 0; k < p.versions.size(); ++k) {
    std::vector<int64_t> trial = caps;
    int64_t least = p.versions[k].minVersions;
    for (; least < p.versions[k].maxVersions; ++least) {
      trial[k] = least;
      if (!hasPositiveCycle(p.numUnits() + 1, edges(p, ii, stageLimit, trial))) break;
    }
    out.push_back(least);
  }
  return out;
}

int64_t iterationLowerBound(const SchedulingProblem& p, int64_t ii, int64_t stageLimit,
                            const std::vector<int64_t>& versionCaps) {
  int n = p.numUnits(), nodes = n + 1;
  std::vector<std::vector<int64_t>> dist(nodes, std::vector<int64_t>(nodes, kNone));
  for (int i = 0; i < nodes; ++i) dist[i][i] = 0;
  for (const auto& e : edges(p, ii, stageLimit, versionCaps))
    dist[e.from][e.to] = std::max(dist[e.from][e.to], e.weight);
  for (int k = 0; k < nodes; ++k)
    for (int i = 0; i < nodes; ++i) {
      if (dist[i][k] == kNone) continue;
      for (int j = 0; j < nodes; ++j)
        if (dist[k][j] != kNone) dist[i][j] = std::max(dist[i][j], dist[i][k] + dist[k][j]);
    }
  int64_t bound = 1;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      if (dist[i][j] != kNone) bound = std::max(bound, dist[i][j] + p.span(j));
  return bound;
}

}  // namespace tilesched::schedule
