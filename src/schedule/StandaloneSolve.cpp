// The standalone solve (see StandaloneSolve.h): prove-infeasible checks,
// a checked fallback, the solver, the checker, then the result's two forms.
#include "schedule/StandaloneSolve.h"

#include <fmt/format.h>
#include <z3++.h>

#include <algorithm>
#include <numeric>

#include "analysis/Tasks.h"
#include "schedule/ListFallback.h"
#include "schedule/ModuloSolver.h"
#include "schedule/ProblemCheck.h"

namespace tilesched::schedule {

using nlohmann::json;

namespace {

// A cycle of edges s_to >= s_from + latency (same iteration) whose latencies
// sum to more than 0 has no solution at any II: Bellman-Ford on the longest
// paths, which still grow after n rounds only on such a cycle.
std::string positiveCycle(const SchedulingProblem& p) {
  struct Edge {
    int from, to;
    int64_t latency;
    std::string what;
  };
  std::vector<Edge> edges;
  for (size_t x = 0; x < p.deps.size(); ++x) {
    const ProblemDep& d = p.deps[x];
    if (d.versionVar < 0 && d.distance == 0)
      edges.push_back({d.from, d.to, d.latency, fmt::format("data_deps[{}]", x)});
  }
  if (!p.isLoop)
    for (size_t x = 0; x < p.phaseOrder.size(); ++x)
      edges.push_back({p.phaseOrder[x].first, p.phaseOrder[x].second, 0,
                       fmt::format("pipe_order_deps[{}]", x)});
  int n = p.numUnits();
  std::vector<int64_t> longest(n, 0);
  for (int round = 0; round <= n; ++round) {
    bool changed = false;
    for (const Edge& e : edges) {
      if (longest[e.from] + e.latency > longest[e.to]) {
        longest[e.to] = longest[e.from] + e.latency;
        changed = true;
        if (round == n)
          return fmt::format(
              "no schedule exists: the same-iteration dependencies form a cycle with a positive "
              "total latency (through {}, task {} -> {})",
              e.what, e.from, e.to);
      }
    }
    if (!changed) break;
  }
  return "";
}

}  // namespace

std::string provablyInfeasible(const SchedulingProblem& p) {
  for (size_t g = 0; g < p.memoryGroups.size(); ++g) {
    int64_t least = 0;
    for (int k : p.memoryGroups[g].versions)
      least += p.versions[k].minVersions * p.versions[k].bytes;
    if (least > p.memoryGroups[g].capacity)
      return fmt::format(
          "no schedule exists: memory_groups[{}] has capacity {} bytes, below the {} bytes of "
          "the fewest versions its buffers may have",
          g, p.memoryGroups[g].capacity, least);
  }
  return positiveCycle(p);
}

StandaloneResult solveStandalone(const SchedulingProblem& problem, unsigned timeoutMs) {
  StandaloneResult out;
  out.error = provablyInfeasible(problem);
  if (!out.error.empty()) return out;
  // The fallback bounds the search from above; with the caller's stage or
  // phase constraints the list schedule may break them, the sequential one
  // (every task in stage 0, in index order) less often.
  std::vector<ProblemSolution> fallbacks = {listSchedule(problem), sequentialSchedule(problem)};
  auto legal = std::find_if(fallbacks.begin(), fallbacks.end(), [&](const ProblemSolution& s) {
    return checkProblemSolution(problem, s).empty();
  });
  ProblemSolution fallback = legal != fallbacks.end() ? *legal : fallbacks.front();
  if (legal == fallbacks.end() && problem.isLoop) {
    // Neither is legal, so neither bounds the search: search up to an II at
    // which every task fits in one window after the other, stage by stage
    // (an answer still has to pass the checker).
    fallback.ii = std::max(fallback.ii, iiKeepingEveryStage(problem));
  }
  z3::context context;
  SolverLimits limits;
  limits.timeoutMs = timeoutMs;
  out.solution = solveProblem(problem, fallback, context, limits);
  out.checkerErrors = checkProblemSolution(problem, out.solution);
  if (out.checkerErrors.empty()) {
    out.ok = true;
    return out;
  }
  out.error = fmt::format(
      "no schedule that meets every constraint was found (the checker rejects the best one: "
      "{}{})",
      out.checkerErrors.front(),
      out.checkerErrors.size() > 1 ? fmt::format("; {} more", out.checkerErrors.size() - 1) : "");
  return out;
}

json standaloneResultJson(const SchedulingProblem& p, const StandaloneResult& r) {
  const ProblemSolution& s = r.solution;
  json extras;
  extras[p.isLoop ? "ii_lower_bound" : "makespan_lower_bound"] = s.iiLowerBound;
  extras["proven_optimal"] = s.provenOptimal;
  extras["search"] = s.provenOptimal  ? std::string("proven optimal")
                     : s.note.empty() ? std::string("not proven optimal")
                                      : s.note;
  extras["fallback"] = s.fallback;
  extras["checker"] = "accepted";
  extras["solve_ms"] = s.solveMs;
  extras["cpu_ms"] = s.stats.cpuMs;
  extras["solver_checks"] = s.stats.checks;
  json out;
  out["start_times"] = s.start;
  if (p.isLoop) {
    out["buffer_versions"] = s.versions;
    out["ii"] = s.ii;
  } else {
    std::vector<int> order(p.numUnits());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](int a, int b) { return s.start[a] < s.start[b]; });
    out["sorted_indices"] = order;
    out["makespan"] = s.ii;
  }
  out["tilesched"] = extras;
  return out;
}

std::string standaloneResultText(const SchedulingProblem& p, const StandaloneResult& r) {
  const ProblemSolution& s = r.solution;
  std::string out =
      p.isLoop ? fmt::format("loop of {} tasks: II {} (lower bound {}{})\n", p.numUnits(), s.ii,
                             s.iiLowerBound, s.provenOptimal ? ", proven optimal" : "")
               : fmt::format("straight-line list of {} tasks: makespan {} (lower bound {}{})\n",
                             p.numUnits(), s.ii, s.iiLowerBound,
                             s.provenOptimal ? ", proven optimal" : "");
  if (!s.provenOptimal && !s.note.empty()) out += "  search: " + s.note + "\n";
  out += p.isLoop ? "  task  start  stage  phase  pipes\n" : "  task  start  pipes\n";
  for (int i = 0; i < p.numUnits(); ++i)
    out += p.isLoop
               ? fmt::format("  {:>4}  {:>5}  {:>5}  {:>5}  {}\n", i, s.start[i], s.start[i] / s.ii,
                             s.start[i] % s.ii, analysis::pipeMaskName(p.pipeMask[i]))
               : fmt::format("  {:>4}  {:>5}  {}\n", i, s.start[i],
                             analysis::pipeMaskName(p.pipeMask[i]));
  for (size_t k = 0; k < s.versions.size(); ++k)
    out += fmt::format("  buffer {}: {} versions of {} bytes\n", k, s.versions[k],
                       p.versions[k].bytes);
  out += fmt::format("checker: accepted; solved in {:.1f} ms ({} solver checks)\n", s.solveMs,
                     s.stats.checks);
  return out;
}

}  // namespace tilesched::schedule
