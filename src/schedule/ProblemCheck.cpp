// The problem-level checker (see ProblemCheck.h). Written apart from the
// encoding in ModuloSolver.cpp on purpose: it restates each rule from SPEC §5
// over the numbers, so a mistake in the encoding shows up here.
#include "schedule/ProblemCheck.h"

#include <fmt/format.h>

#include <cstdlib>

#include "ir/IROperator.h"

namespace tilesched::schedule {

namespace {

using ir::floorDiv;
using ir::floorMod;

class SolutionChecker {
 public:
  SolutionChecker(const SchedulingProblem& p, const ProblemSolution& s) : p_(p), s_(s) {}

  std::vector<std::string> run() {
    int n = p_.numUnits();
    if (static_cast<int>(s_.start.size()) != n) {
      fail(fmt::format("{} start times for {} tasks", s_.start.size(), n));
      return errors_;
    }
    if (s_.versions.size() != p_.versions.size()) {
      fail(
          fmt::format("{} buffer versions for {} buffers", s_.versions.size(), p_.versions.size()));
      return errors_;
    }
    if (p_.isLoop && s_.ii < 1) {
      fail(fmt::format("II {} is below 1", s_.ii));
      return errors_;
    }
    for (int i = 0; i < n; ++i)
      if (s_.start[i] < 0) fail(fmt::format("start_times[{}] = {} is negative", i, s_.start[i]));
    checkVersions();
    checkDependencies();
    checkPipes();
    checkExclusions();
    if (p_.isLoop)
      checkStages();
    else
      for (size_t x = 0; x < p_.phaseOrder.size(); ++x) {
        auto [a, b] = p_.phaseOrder[x];
        if (s_.start[a] > s_.start[b])
          fail(fmt::format("pipe_order_deps[{}]: s{} = {} starts after s{} = {}", x, a, s_.start[a],
                           b, s_.start[b]));
      }
    return errors_;
  }

 private:
  void fail(std::string message) { errors_.push_back(std::move(message)); }
  int64_t stage(int i) const { return floorDiv(s_.start[i], s_.ii); }
  int64_t phase(int i) const { return floorMod(s_.start[i], s_.ii); }

  void checkVersions() {
    for (size_t k = 0; k < p_.versions.size(); ++k) {
      const ProblemVersion& v = p_.versions[k];
      if (s_.versions[k] < v.minVersions || s_.versions[k] > v.maxVersions)
        fail(fmt::format("buffer {}: {} versions, outside {}..{}", k, s_.versions[k], v.minVersions,
                         v.maxVersions));
    }
    for (size_t g = 0; g < p_.memoryGroups.size(); ++g) {
      int64_t used = 0;
      for (int k : p_.memoryGroups[g].versions) used += s_.versions[k] * p_.versions[k].bytes;
      if (used > p_.memoryGroups[g].capacity)
        fail(fmt::format("memory_groups[{}]: the versions use {} bytes of {}", g, used,
                         p_.memoryGroups[g].capacity));
    }
  }

  void checkDependencies() {
    for (size_t x = 0; x < p_.deps.size(); ++x) {
      const ProblemDep& d = p_.deps[x];
      int64_t gap = s_.start[d.to] - s_.start[d.from];
      if (!p_.isLoop) {
        // A straight-line list runs once: only same-iteration edges bind.
        if (d.versionVar < 0 && d.distance == 0 && gap < d.latency)
          fail(fmt::format("data_deps[{}] ({} -> {}): s{} - s{} = {} but it must be >= {}", x,
                           d.from, d.to, d.to, d.from, gap, d.latency));
        continue;
      }
      int64_t distance = d.versionVar >= 0 ? s_.versions[d.versionVar] : d.distance;
      if (gap < d.latency - s_.ii * distance)
        fail(fmt::format(
            "data_deps[{}] ({} -> {}, distance {}{}): s{} - s{} = {} but it must be "
            ">= {} - {}·{}",
            x, d.from, d.to, d.versionVar >= 0 ? fmt::format("v{} = ", d.versionVar) : "", distance,
            d.to, d.from, gap, d.latency, s_.ii, distance));
    }
  }

  void checkPipes() {
    int n = p_.numUnits();
    for (int a = 0; a < n; ++a) {
      if (p_.isLoop && p_.pipeMask[a] && p_.ii[a] > s_.ii)
        fail(fmt::format("task {} occupies its pipe {} cycles, longer than II {}", a, p_.ii[a],
                         s_.ii));
      for (int b = a + 1; b < n; ++b) {
        if (!(p_.pipeMask[a] & p_.pipeMask[b])) continue;
        std::string pair =
            fmt::format("tasks {} [{}, +{}) and {} [{}, +{}) share pipe mask {}", a, s_.start[a],
                        p_.ii[a], b, s_.start[b], p_.ii[b], p_.pipeMask[a] & p_.pipeMask[b]);
        int64_t gap = s_.start[b] - s_.start[a];
        if (!p_.isLoop) {
          if (gap < p_.ii[a] && -gap < p_.ii[b]) fail(pair + " and overlap");
          continue;
        }
        int64_t d = floorMod(gap, s_.ii);
        if (d < p_.ii[a] || s_.ii - d < p_.ii[b])
          fail(fmt::format("{} and overlap modulo II {}", pair, s_.ii));
        if (p_.enableOffset) continue;
        // Without enable_offset the body is issued flat, in program order.
        if (gap < p_.ii[a]) fail(pair + ": without enable_offset the later one must follow");
        if (std::abs(gap) >= s_.ii)
          fail(fmt::format("{}: without enable_offset they must lie within one II window of {}",
                           pair, s_.ii));
      }
    }
  }

  void checkExclusions() {
    for (size_t x = 0; x < p_.exclusions.size(); ++x) {
      const ProblemExclusion& e = p_.exclusions[x];
      int64_t ab = s_.start[e.b] - s_.start[e.a];
      bool ok = p_.isLoop ? (ab >= e.forwardLatency && s_.ii - ab >= e.reverseLatency) ||
                                (-ab >= e.reverseLatency && s_.ii + ab >= e.forwardLatency)
                          : ab >= e.forwardLatency || -ab >= e.reverseLatency;
      if (!ok)
        fail(
            fmt::format("owner_exclusion_deps[{}] ({}, {}, {}, {}): s{} - s{} = {} fits neither "
                        "order{}",
                        x, e.a, e.b, e.forwardLatency, e.reverseLatency, e.b, e.a, ab,
                        p_.isLoop ? fmt::format(" at II {}", s_.ii) : ""));
    }
  }

  void checkStages() {
    for (size_t g = 0; g < p_.sameStage.size(); ++g) {
      const SameStageGroup& group = p_.sameStage[g];
      if (group.versionVar >= 0 && s_.versions[group.versionVar] <= 1) continue;
      for (int u : group.units)
        if (stage(u) != stage(group.units.front()))
          fail(fmt::format("same_stage[{}]: task {} is in stage {}, task {} in stage {}", g, u,
                           stage(u), group.units.front(), stage(group.units.front())));
    }
    for (size_t x = 0; x < p_.phaseOrder.size(); ++x) {
      auto [a, b] = p_.phaseOrder[x];
      if (phase(a) > phase(b))
        fail(fmt::format("pipe_order_deps[{}]: phase r{} = {} is after r{} = {}", x, a, phase(a), b,
                         phase(b)));
    }
    for (size_t x = 0; x < p_.stageOrder.size(); ++x) {
      auto [u, w] = p_.stageOrder[x];
      if (stage(u) > stage(w))
        fail(fmt::format("stage_order_deps[{}]: stage k{} = {} is after k{} = {}", x, u, stage(u),
                         w, stage(w)));
    }
    for (size_t i = 0; i < p_.fixedStages.size(); ++i)
      if (p_.fixedStages[i] >= 0 && stage(static_cast<int>(i)) != p_.fixedStages[i])
        fail(fmt::format("manual_stages[{}]: task {} is in stage {}, not {}", i, i,
                         stage(static_cast<int>(i)), p_.fixedStages[i]));
  }

  const SchedulingProblem& p_;
  const ProblemSolution& s_;
  std::vector<std::string> errors_;
};

}  // namespace

std::vector<std::string> checkProblemSolution(const SchedulingProblem& problem,
                                              const ProblemSolution& solution) {
  return SolutionChecker(problem, solution).run();
}

}  // namespace tilesched::schedule
