// Fill versions (see FillVersions.h).
#include "schedule/FillVersions.h"

#include <algorithm>

namespace tilesched::schedule {

PipeUse taskUse(uint32_t mask, int64_t ii) {
  PipeUse u;
  u.mask = mask;
  for (size_t q = 0; q < 32; ++q) u.last[q] = ii;
  return u;
}

int64_t replayMakespan(const SchedulingProblem& p, const std::vector<int64_t>& versions,
                       int64_t trips, const std::vector<PipeUse>& uses) {
  int n = p.numUnits();
  int64_t k = std::max<int64_t>(1, trips);
  std::vector<int64_t> start(static_cast<size_t>(n * k), 0);
  std::vector<int64_t> pipeFree(32, 0);  // by bit of the pipe mask
  // Incoming dependencies of each unit.
  std::vector<std::vector<const ProblemDep*>> incoming(static_cast<size_t>(n));
  for (const auto& d : p.deps) incoming[static_cast<size_t>(d.to)].push_back(&d);
  int64_t makespan = 0;
  for (int64_t it = 0; it < k; ++it) {
    for (int u = 0; u < n; ++u) {
      int64_t s = 0;
      for (const ProblemDep* d : incoming[static_cast<size_t>(u)]) {
        int64_t dist =
            d->versionVar >= 0 ? versions[static_cast<size_t>(d->versionVar)] : d->distance;
        int64_t from = it - dist;
        if (from < 0 || (dist == 0 && d->from >= u)) continue;
        s = std::max(s, start[static_cast<size_t>(from * n + d->from)] + d->latency);
      }
      // Owner exclusion: program order within an iteration, the reverse
      // hand-off into the next.
      for (const auto& e : p.exclusions) {
        if (e.b == u) s = std::max(s, start[static_cast<size_t>(it * n + e.a)] + e.forwardLatency);
        if (e.a == u && it > 0)
          s = std::max(s, start[static_cast<size_t>((it - 1) * n + e.b)] + e.reverseLatency);
      }
      PipeUse use = uses.size() == static_cast<size_t>(n)
                        ? uses[static_cast<size_t>(u)]
                        : taskUse(p.pipeMask[static_cast<size_t>(u)], p.ii[static_cast<size_t>(u)]);
      for (size_t q = 0; q < 32; ++q)
        if (use.mask & (1u << q)) s = std::max(s, pipeFree[q] - use.first[q]);
      for (size_t q = 0; q < 32; ++q)
        if (use.mask & (1u << q)) pipeFree[q] = s + use.last[q];
      start[static_cast<size_t>(it * n + u)] = s;
      makespan = std::max(makespan, s + p.span(u));
    }
  }
  return makespan;
}

namespace {

bool fits(const SchedulingProblem& p, const std::vector<int64_t>& versions) {
  for (const auto& g : p.memoryGroups) {
    int64_t used = 0;
    for (int v : g.versions)
      used += versions[static_cast<size_t>(v)] * p.versions[static_cast<size_t>(v)].bytes;
    if (used > g.capacity) return false;
  }
  return true;
}

}  // namespace

std::vector<int64_t> fillVersions(const SchedulingProblem& p, std::vector<int64_t> versions,
                                  int64_t trips, const std::vector<PipeUse>& uses) {
  if (!p.isLoop || p.enableOffset || p.versions.empty() || versions.size() != p.versions.size())
    return versions;
  int64_t k = std::clamp<int64_t>(trips, 1, kFillIterations);
  if (k < 2) return versions;
  int64_t best = replayMakespan(p, versions, k, uses);
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t v = 0; v < versions.size(); ++v) {
      if (versions[v] >= p.versions[v].maxVersions) continue;
      std::vector<int64_t> more = versions;
      ++more[v];
      if (!fits(p, more)) continue;
      int64_t m = replayMakespan(p, more, k, uses);
      // Worth its memory only for a clear gain: the replay is a model of
      // the machine (no scalar unit, no queue depth), so a gain under 1%
      // is within its error (annotate_versions: 10 cycles in the replay,
      // none in the simulator).
      if ((best - m) * 100 < best) continue;
      versions = std::move(more);
      best = m;
      changed = true;
    }
  }
  return versions;
}

}  // namespace tilesched::schedule
