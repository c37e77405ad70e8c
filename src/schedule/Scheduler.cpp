// scheduleKernel (see Scheduler.h). Steps: capacity pre-check; clone the unit
// tree (solved inner timings are written into the clone, never into the
// caller's analysis); solve every list in post-order, checking each answer;
// decide every storage's versions; check the whole kernel.
#include "schedule/Scheduler.h"

#include <fmt/format.h>
#include <z3++.h>

#include <algorithm>
#include <chrono>
#include <memory>

#include "analysis/Dependencies.h"
#include "ir/IROperator.h"
#include "schedule/CapacityCheck.h"
#include "schedule/Check.h"
#include "schedule/FillVersions.h"
#include "schedule/ListFallback.h"
#include "schedule/LowerBound.h"
#include "schedule/Memory.h"
#include "schedule/ModuloSolver.h"
#include "schedule/Problem.h"
#include "schedule/ProblemDump.h"

namespace tilesched::schedule {

using namespace analysis;

namespace {

std::shared_ptr<UnitList> cloneTree(const UnitList& list) {
  auto out = std::make_shared<UnitList>(list);
  for (auto& u : out->units)
    if (u.isLoop() && u.body) u.body = cloneTree(*u.body);
  return out;
}

void collectPostOrder(UnitList& list, std::vector<UnitList*>& out) {
  for (auto& u : list.units)
    if (u.isLoop() && u.body) collectPostOrder(*u.body, out);
  out.push_back(&list);
}

class KernelScheduler {
 public:
  KernelScheduler(const KernelAnalysis& analysis, const ir::Kernel& kernel, const Target& target,
                  const ScheduleOptions& options, DiagnosticEngine& diags)
      : analysis_(analysis), kernel_(kernel), target_(target), options_(options), diags_(diags) {
    for (const auto& st : kernel.storages) {
      chosen_.push_back(1);
      aligned_.push_back(alignedVersionBytes(st, target));
    }
  }

  KernelSchedule run() {
    KernelSchedule out;
    if (!checkMinimumCapacity(analysis_.ownership, kernel_, target_, diags_)) return out;
    z3::context context;  // one per kernel: fixed seed, one thread (ModuloSolver)
    auto root = cloneTree(analysis_.root);
    std::vector<UnitList*> lists;
    collectPostOrder(*root, lists);
    int dumpIndex = 0;
    unsigned perList = options_.solverTimeoutMs;  // 0: list schedules only
    // The pass's budget is Z3 work too (ModuloSolver.h, kWorkPerMs), so which
    // lists get the solver does not depend on the machine's load.
    int64_t passWorkLeft = static_cast<int64_t>(perList) * kPassBudgetLists * kWorkPerMs;
    auto counted = [this](const ir::Storage& st) {
      return clockedByCounter(kernel_, analysis_.ownership, st);
    };
    for (UnitList* list : lists) {
      recomputeDependencyLatencies(*list);
      SchedulingProblem problem = buildProblem(*list, versionContext());
      addMemoryGroups(problem);
      // Stages no II can meet are dropped before the search spends its budget.
      std::optional<std::string> impossible = impossibleStages(*list, problem);
      std::vector<int64_t> askedStages = problem.fixedStages;
      if (impossible) problem.fixedStages.clear();
      ProblemSolution fallback = listSchedule(problem);
      // The list schedule ignores T.Stage: it stays the legal answer to fall
      // back on, but it no longer bounds the search for one that keeps them.
      bool stagesIgnored = !keepsFixedStages(problem, fallback.start, fallback.ii);
      ProblemSolution searchBound = fallback;
      if (stagesIgnored) searchBound.ii = std::max(fallback.ii, iiKeepingEveryStage(problem));
      SolverLimits limits;
      limits.timeoutMs = static_cast<unsigned>(
          std::clamp<int64_t>(passWorkLeft / kWorkPerMs, 0, static_cast<int64_t>(perList)));
      ProblemSolution solution = solveProblem(problem, searchBound, context, limits);
      if (stagesIgnored && solution.fallback)
        solution = stagesFallback(problem, fallback, solution);
      passWorkLeft -= solution.stats.work;
      if (solution.solverSkipped && !solution.provenOptimal) warnSkipped(*list, problem, solution);
      // Versions the machine uses in the loop's first iterations, which the
      // modulo schedule does not need (FillVersions.h).
      std::vector<std::pair<ir::Storage, int64_t>> fillRaised;
      std::vector<int64_t> moduloVersions = solution.versions;
      if (list->loop() && problem.isLoop) {
        int64_t trips = list->timing.tripsKnown ? list->timing.trips : kFillIterations;
        auto raised = fillVersions(problem, solution.versions, trips, pipeUses(*list));
        for (size_t k = 0; k < raised.size(); ++k)
          if (raised[k] > solution.versions[k])
            fillRaised.push_back({problem.versions[k].storage, solution.versions[k]});
        solution.versions = std::move(raised);
      }
      ListSchedule schedule = toListSchedule(*list, problem, solution);
      schedule.fillRaised = fillRaised;
      auto errors = checkListSchedule(*list, schedule, versionsWith(problem, solution), counted);
      if (!errors.empty()) {
        // An answer the checker rejects is never used: the sequential
        // schedule is legal by construction.
        double ms = solution.solveMs;
        SolveStats stats = solution.stats;
        std::string rejected = formatScheduleErrors(errors);
        solution = sequentialSchedule(problem);
        solution.note =
            "the checker rejected the schedule found: " + rejected.substr(0, rejected.find('\n'));
        solution.iiLowerBound = iiLowerBoundOf(problem);
        solution.solveMs = ms;
        solution.stats = stats;
        schedule = toListSchedule(*list, problem, solution);
        errors = checkListSchedule(*list, schedule, versionsWith(problem, solution), counted);
      }
      TS_INTERNAL(errors.empty(),
                  "the list-schedule fallback fails the checker:\n" + formatScheduleErrors(errors));
      if (impossible || !keepsFixedStages(problem, solution.start, solution.ii))
        warnStagesNotKept(*list, askedStages, solution,
                          impossible.value_or("no modulo schedule found keeps them"));
      for (size_t k = 0; k < problem.versions.size(); ++k) {
        int index = storageIndex(problem.versions[k].storage);
        if (index >= 0) chosen_[index] = std::max(chosen_[index], solution.versions[k]);
      }
      if (!list->isRoot() && !schedule.start.empty()) {
        int64_t first = *std::min_element(schedule.start.begin(), schedule.start.end());
        list->timing.ii = schedule.ii;
        list->timing.start.clear();
        for (int64_t s : schedule.start) list->timing.start.push_back(s - first);
        list->timing.makespan = schedule.makespan;
        list->timing.estimated = false;
      }
      if (!options_.dumpDirectory.empty())
        dumpProblem(options_.dumpDirectory, kernel_, list->loop(), dumpIndex++, problem, solution,
                    moduloVersions);
      schedule.problem = std::make_shared<const SchedulingProblem>(std::move(problem));
      out.lists.push_back(std::move(schedule));
    }
    out.storages = decisions();
    auto errors = checkSchedule(out, analysis_, kernel_, target_);
    TS_INTERNAL(errors.empty(), "schedule fails the checker:\n" + formatScheduleErrors(errors));
    return out;
  }

 private:
  // When each unit of `list` uses each pipe (FillVersions.h): a nested loop
  // from its first instruction on a pipe to the end of its last one there,
  // from its (solved or estimated) timing.
  static std::vector<PipeUse> pipeUses(const UnitList& list) {
    std::vector<PipeUse> out;
    for (const auto& u : list.units) out.push_back(pipeUse(u));
    return out;
  }
  static PipeUse pipeUse(const analysis::Unit& u) {
    if (!u.isLoop() || !u.body) return taskUse(u.pipeMask, u.ii);
    const analysis::LoopTiming& t = u.body->timing;
    PipeUse use;
    use.mask = u.pipeMask;
    for (size_t q = 0; q < 32; ++q) use.first[q] = INT64_MAX, use.last[q] = 0;
    int64_t lastIteration = (t.trips > 0 ? t.trips - 1 : 0) * t.ii;
    for (size_t i = 0; i < u.body->units.size(); ++i) {
      PipeUse inner = pipeUse(u.body->units[i]);
      int64_t at = i < t.start.size() ? t.start[i] : 0;
      for (size_t q = 0; q < 32; ++q) {
        if (!(inner.mask & (1u << q))) continue;
        use.first[q] = std::min(use.first[q], at + inner.first[q]);
        use.last[q] = std::max(use.last[q], lastIteration + at + inner.last[q]);
      }
    }
    for (size_t q = 0; q < 32; ++q)
      if (use.first[q] == INT64_MAX) use.first[q] = 0;
    return use;
  }

  // The user learns that a list kept a list schedule that is not proven
  // optimal without asking the solver (docs/scheduler.md, "Deadlines").
  void warnSkipped(const UnitList& list, const SchedulingProblem& problem,
                   const ProblemSolution& solution) {
    const ir::ForStmt* loop = list.loop();
    std::string what =
        loop ? fmt::format("loop '{}'", loop->var->name) : std::string("the kernel body");
    std::string why = problem.numUnits() > kMaxSolverUnits
                          ? fmt::format("has {} tasks, above the solver's limit of {} per loop",
                                        problem.numUnits(), kMaxSolverUnits)
                      : options_.solverTimeoutMs == 0
                          ? std::string("was not given to the solver (--solver-timeout-ms 0)")
                          : fmt::format(
                                "was reached after the schedule pass's work budget ({} x "
                                "--solver-timeout-ms) was spent",
                                kPassBudgetLists);
    std::string result =
        loop ? fmt::format("II {}, lower bound {}", solution.ii, solution.iiLowerBound)
             : fmt::format("makespan {}, lower bound {}", solution.ii, solution.iiLowerBound);
    diags_.warningOnce(fmt::format("solver-skipped:{}", static_cast<const void*>(list.loop())),
                       loop ? loop->loc : kernel_.loc,
                       fmt::format("{} {}: it keeps the list schedule ({})", what, why, result));
  }

  // No schedule keeps the T.Stage stages: the list schedule, with what the
  // search did (its bound was raised for the stages, not for this answer).
  ProblemSolution stagesFallback(const SchedulingProblem& problem, const ProblemSolution& list,
                                 const ProblemSolution& searched) const {
    ProblemSolution out = list;
    out.fallback = true;
    out.provenOptimal = false;
    out.iiLowerBound = iiLowerBoundOf(problem);
    out.solveMs = searched.solveMs;
    out.stats = searched.stats;
    out.note = "no schedule keeps the stages T.Stage fixes: list schedule";
    return out;
  }

  // A same-iteration dependence into an earlier fixed stage: s_to >= s_from
  // + latency >= k_from·II > (k_to + 1)·II - 1 >= s_to, so no II keeps them.
  static std::optional<std::string> impossibleStages(const UnitList& list,
                                                     const SchedulingProblem& problem) {
    if (problem.fixedStages.empty()) return std::nullopt;
    for (const auto& d : problem.deps) {
      int64_t from = problem.fixedStages[static_cast<size_t>(d.from)],
              to = problem.fixedStages[static_cast<size_t>(d.to)];
      if (d.versionVar < 0 && d.distance == 0 && from >= 0 && to >= 0 && from > to)
        return fmt::format(
            "line {} in stage {} needs line {} of the same iteration, which is in stage {}: no "
            "unit can start in an earlier stage than one it depends on",
            list.units[static_cast<size_t>(d.to)].loc.line, to,
            list.units[static_cast<size_t>(d.from)].loc.line, from);
    }
    return std::nullopt;
  }

  // `with T.Stage(k)` asked for stages the schedule does not keep: the loop
  // runs on the schedule found without them, with a note at each unit moved.
  void warnStagesNotKept(const UnitList& list, const std::vector<int64_t>& asked,
                         const ProblemSolution& solution, const std::string& why) {
    const ir::ForStmt* loop = list.loop();
    if (!loop) return;
    auto& d = diags_.warning(
        loop->loc, fmt::format("the stages T.Stage fixes in loop '{}' are not kept ({}): it is "
                               "scheduled as if they were not written (II {})",
                               loop->var->name, why, solution.ii));
    for (const Unit& u : list.units) {
      int64_t fixed = asked[static_cast<size_t>(u.index)];
      int64_t start = solution.start[static_cast<size_t>(u.index)];
      int64_t got = solution.ii > 0 ? ir::floorDiv(start, solution.ii) : 0;
      if (fixed >= 0 && got != fixed)
        d.notes.push_back(
            {u.loc,
             fmt::format("T.Stage({}) is written here; this unit starts in stage {}", fixed, got)});
    }
  }

  static int64_t iiLowerBoundOf(const SchedulingProblem& p) {
    return p.isLoop ? iiLowerBound(p) : makespanLowerBound(p);
  }

  VersionContext versionContext() const {
    VersionContext c;
    c.ownership = &analysis_.ownership;
    c.kernel = &kernel_;
    c.chosen = &chosen_;
    c.alignedBytes = &aligned_;
    return c;
  }

  int storageIndex(const ir::Storage& st) const {
    for (size_t i = 0; i < kernel_.storages.size(); ++i)
      if (kernel_.storages[i] == st) return static_cast<int>(i);
    return -1;
  }

  // Versions of every storage as they stand, with `solution`'s variables.
  std::function<int64_t(const ir::Storage&)> versionsWith(const SchedulingProblem& problem,
                                                          const ProblemSolution& solution) const {
    return [this, &problem, &solution](const ir::Storage& st) -> int64_t {
      for (size_t k = 0; k < problem.versions.size(); ++k)
        if (problem.versions[k].storage == st) return solution.versions[k];
      return decisionFor(st).versions;
    };
  }

  // The bytes each scope holds outside `problem`'s version variables.
  void addMemoryGroups(SchedulingProblem& problem) const {
    for (MemScope scope : kCapacityScopes) {
      auto capacity = schedulingCapacity(kernel_, target_, scope);
      if (!capacity) continue;
      MemoryGroup group;
      group.scope = scope;
      int64_t others = 0;
      for (const auto& so : analysis_.ownership.storages) {
        if (so.storage->scope != scope) continue;
        bool variable = false;
        for (size_t k = 0; k < problem.versions.size(); ++k)
          if (problem.versions[k].storage == so.storage) {
            variable = true;
            group.versions.push_back(static_cast<int>(k));
          }
        if (!variable) others += footprintBytes(so, decisionFor(so.storage).versions, target_);
      }
      if (group.versions.empty()) continue;
      group.capacity = *capacity - others;
      problem.memoryGroups.push_back(group);
    }
  }

  StorageDecision decisionFor(const ir::Storage& st) const {
    StorageDecision d;
    d.storage = st;
    const StorageOwnership* so = analysis_.ownership.find(st);
    if (!so) return d;
    d.bound = std::max<int64_t>(1, so->versionBound);
    if (so->manual) {
      d.source = VersionSource::Manual;
      d.versions = std::max<int64_t>(1, so->ring);
      d.bound = d.versions;
    } else if (so->optOut) {
      d.source = VersionSource::OptOut;
    } else if (so->eligible) {
      if (auto fixed = fixedVersionCount(kernel_, st)) {
        d.source = VersionSource::Fixed;
        d.versions = std::max<int64_t>(1, *fixed);
      } else {
        d.source = VersionSource::Solver;
        int index = storageIndex(st);
        d.versions = index >= 0 ? chosen_[index] : 1;
      }
    }
    return d;
  }

  std::vector<StorageDecision> decisions() const {
    std::vector<StorageDecision> out;
    for (const auto& st : kernel_.storages) out.push_back(decisionFor(st));
    return out;
  }

  static ListSchedule toListSchedule(const UnitList& list, const SchedulingProblem& problem,
                                     const ProblemSolution& solution) {
    ListSchedule s;
    s.loop = list.loop();
    s.enableOffset = problem.enableOffset;
    s.iiLowerBound = solution.iiLowerBound;
    s.provenOptimal = solution.provenOptimal;
    s.fallback = solution.fallback;
    s.solveMs = solution.solveMs;
    s.stats = solution.stats;
    s.note = solution.note;
    s.start = solution.start;
    int n = problem.numUnits();
    int64_t first = n ? *std::min_element(s.start.begin(), s.start.end()) : 0;
    if (list.isRoot())
      for (auto& st : s.start) st -= first;  // the root's II is its makespan from 0
    int64_t last = 0;
    for (int i = 0; i < n; ++i) last = std::max(last, s.start[i] + problem.span(i));
    s.makespan = std::max<int64_t>(1, last - (list.isRoot() ? 0 : first));
    s.ii = list.isRoot() ? s.makespan : std::max<int64_t>(1, solution.ii);
    for (int i = 0; i < n; ++i) {
      s.stage.push_back(list.isRoot() ? 0 : s.start[i] / s.ii);
      s.maxStage = std::max(s.maxStage, s.stage.back());
    }
    return s;
  }

  const KernelAnalysis& analysis_;
  const ir::Kernel& kernel_;
  const Target& target_;
  const ScheduleOptions& options_;
  DiagnosticEngine& diags_;
  std::vector<int64_t> chosen_;   // per storage: versions chosen so far (automatic storages)
  std::vector<int64_t> aligned_;  // per storage: one version's aligned bytes
};

}  // namespace

KernelSchedule scheduleKernel(const KernelAnalysis& analysis, const ir::Kernel& kernel,
                              const Target& target, const ScheduleOptions& options,
                              DiagnosticEngine& diags) {
  KernelSchedule out = KernelScheduler(analysis, kernel, target, options, diags).run();
  // The optimistic write-first rule's visible misses (SPEC §2.4).
  for (const auto& d : out.storages)
    if (const auto* own = analysis.ownership.find(d.storage))
      analysis::warnPartialWrite(*own, d.versions, diags);
  return out;
}

}  // namespace tilesched::schedule
