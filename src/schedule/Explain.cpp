// The explanations of a kernel schedule (see Explain.h).
#include "schedule/Explain.h"

#include <algorithm>

#include "ir/Functor.h"
#include "schedule/ListFallback.h"
#include "schedule/Memory.h"
#include "schedule/Problem.h"

namespace tilesched::schedule {

using namespace analysis;

std::string_view iiBoundKindName(IIBoundKind k) {
  switch (k) {
    case IIBoundKind::Resource:
      return "resource";
    case IIBoundKind::Recurrence:
      return "recurrence";
    case IIBoundKind::Owner:
      return "owner";
    case IIBoundKind::None:
      return "none";
  }
  return "none";
}

std::string_view searchStatusName(SearchStatus s) {
  switch (s) {
    case SearchStatus::ProvenOptimal:
      return "proven-optimal";
    case SearchStatus::Fallback:
      return "fallback";
    case SearchStatus::TimedOut:
      return "timed-out";
    case SearchStatus::NotProven:
      return "not-proven";
  }
  return "not-proven";
}

std::string_view versionReasonName(VersionReason r) {
  switch (r) {
    case VersionReason::Annotation:
      return "annotation";
    case VersionReason::OptOut:
      return "opt-out";
    case VersionReason::Manual:
      return "manual";
    case VersionReason::Ineligible:
      return "ineligible";
    case VersionReason::NumStages:
      return "num_stages";
    case VersionReason::Capacity:
      return "capacity";
    case VersionReason::ScheduleNeeds:
      return "schedule-needs";
    case VersionReason::Fill:
      return "fill";
  }
  return "ineligible";
}

const LoopExplanation* KernelExplanation::find(const ir::ForStmt* loop) const {
  for (const auto& l : loops)
    if (l.loop == loop) return &l;
  return nullptr;
}

const StorageExplanation* KernelExplanation::find(const ir::Storage& storage) const {
  for (const auto& s : storages)
    if (s.storage == storage) return &s;
  return nullptr;
}

namespace {

// Which term gives the bound, with what produces it.
LoopExplanation explainLoop(const ListSchedule& ls, const UnitList* list) {
  LoopExplanation e;
  e.loop = ls.loop;
  e.list = list;
  e.ii = ls.ii;
  e.lowerBound = ls.iiLowerBound;
  e.note = ls.note;
  if (ls.fallback)
    e.status = SearchStatus::Fallback;
  else if (ls.provenOptimal)
    e.status = SearchStatus::ProvenOptimal;
  else if (ls.note.find("work budget") != std::string::npos)
    e.status = SearchStatus::TimedOut;
  if (!ls.problem) return e;
  const SchedulingProblem& p = *ls.problem;
  e.terms = iiLowerBoundTerms(p);
  int64_t bound = e.terms.bound();
  bool anyPipe = false;
  for (uint32_t m : p.pipeMask) anyPipe |= m != 0;
  if (e.terms.resourcePipe && e.terms.resource == bound && anyPipe) {
    e.kind = IIBoundKind::Resource;
    e.value = e.terms.resource;
    for (int i = 0; i < p.numUnits(); ++i)
      if (p.pipeMask[i] & pipeMask(*e.terms.resourcePipe)) {
        e.resourceUnits.push_back(i);
        e.resourceBusy.push_back(p.ii[i]);
      }
  } else if (e.terms.recurrence == bound && !e.terms.criticalCycle.empty()) {
    e.kind = IIBoundKind::Recurrence;
    e.value = e.terms.recurrence;
    for (const auto& edge : e.terms.criticalCycle) {
      e.cycleLatency += edge.latency;
      e.cycleDistance += edge.distance;
    }
  } else if (e.terms.exclusionIndex >= 0 && e.terms.exclusion == bound) {
    e.kind = IIBoundKind::Owner;
    e.value = e.terms.exclusion;
    e.exclusionForward = p.exclusions[e.terms.exclusionIndex].forwardLatency;
    e.exclusionReverse = p.exclusions[e.terms.exclusionIndex].reverseLatency;
    if (list && e.terms.exclusionIndex < static_cast<int>(list->exclusions.size()))
      e.exclusion = &list->exclusions[e.terms.exclusionIndex];
  } else {
    e.value = bound;
  }
  return e;
}

// "No cap": more versions than any recurrence can use (distances beyond the
// number of units never bind a cycle harder than the resource bound).
constexpr int64_t kLift = 1024;

// iiLowerBound of `p` with version variable k capped at `cap`.
int64_t boundWithCap(const SchedulingProblem& p, size_t k, int64_t cap) {
  SchedulingProblem q = p;
  q.versions[k].maxVersions = std::max(q.versions[k].minVersions, cap);
  return iiLowerBound(q);
}

class StorageExplainer {
 public:
  StorageExplainer(const KernelAnalysis& analysis, const ir::Kernel& kernel,
                   const KernelSchedule& schedule, const Target& target)
      : analysis_(analysis), kernel_(kernel), schedule_(schedule), target_(target) {}

  StorageExplanation explain(const StorageDecision& d) const {
    StorageExplanation e;
    e.storage = d.storage;
    e.versions = d.versions;
    for (const auto& b : kernel_.buffers)
      if (b->storage == d.storage && !b->isAlias && !e.buffer) e.buffer = b;
    const StorageOwnership* own = analysis_.ownership.find(d.storage);
    if (own) {
      e.bound = std::max<int64_t>(1, own->versionBound);
      e.boundLoop = own->versionBoundLoop;
      if (!own->owners.empty()) e.loop = ir::as<ir::ForStmt>(own->owners.front());
    }
    switch (d.source) {
      case VersionSource::Fixed:
        e.reason = VersionReason::Annotation;
        e.annotationLoc = annotationLoc(d.storage, false);
        return e;
      case VersionSource::OptOut:
        e.reason = VersionReason::OptOut;
        e.annotationLoc = annotationLoc(d.storage, true);
        return e;
      case VersionSource::Manual:
        e.reason = VersionReason::Manual;
        for (const auto& m : kernel_.annotations.manual)
          if (m.storage == d.storage && !e.annotationLoc.valid()) e.annotationLoc = m.loc;
        return e;
      case VersionSource::Ineligible:
        e.reason = VersionReason::Ineligible;
        e.ineligibleReason = own ? own->reason : "it is not an on-chip buffer";
        return e;
      case VersionSource::Solver:
        break;
    }
    explainSolverCount(e);
    return e;
  }

 private:
  SourceLoc annotationLoc(const ir::Storage& st, bool optOut) const {
    for (const auto& spec : kernel_.annotations.bufferVersions)
      if (spec.storage == st && spec.count && spec.isOptOut() == optOut) return spec.loc;
    return {};
  }

  void explainSolverCount(StorageExplanation& e) const {
    for (const ListSchedule& ls : schedule_.lists)
      for (const auto& [st, need] : ls.fillRaised)
        if (st == e.storage) {
          e.reason = VersionReason::Fill;
          e.loop = ls.loop;
          e.scheduleNeeds = need;
          if (ls.problem)
            for (const auto& v : ls.problem->versions)
              if (v.storage == st) e.bound = v.maxVersions;
          return;
        }
    e.reason = VersionReason::ScheduleNeeds;
    // The list whose schedule needed the count: the first (inner loops and
    // earlier siblings first) whose final starts need it.
    const ListSchedule* deciding = nullptr;
    size_t var = 0;
    std::vector<int64_t> needed;
    for (const ListSchedule& ls : schedule_.lists) {
      if (!ls.loop || !ls.problem) continue;
      const SchedulingProblem& p = *ls.problem;
      for (size_t k = 0; k < p.versions.size(); ++k) {
        if (p.versions[k].storage != e.storage) continue;
        auto need = neededVersions(p, ls.start, ls.ii);
        bool first = !deciding;
        bool firstToNeedIt = deciding && needed[var] != e.versions && need[k] == e.versions;
        if (first || firstToNeedIt) deciding = &ls, var = k, needed = std::move(need);
      }
    }
    if (!deciding) {
      // No dependency crosses iterations through it: one version is all.
      e.crossIteration = false;
      return;
    }
    const SchedulingProblem& p = *deciding->problem;
    e.loop = deciding->loop;
    e.bound = p.versions[var].maxVersions;
    e.iiAboveBound = deciding->ii > deciding->iiLowerBound;
    e.bytesPerVersion = p.versions[var].bytes;
    const MemoryGroup* group = nullptr;
    for (const auto& g : p.memoryGroups)
      if (std::find(g.versions.begin(), g.versions.end(), static_cast<int>(var)) !=
          g.versions.end())
        group = &g;
    bool fitsOneMore = true;
    if (group) {
      auto scopeCapacity = schedulingCapacity(kernel_, target_, group->scope);
      int64_t inGroup = 0;
      for (int k : group->versions) inGroup += needed[k] * p.versions[k].bytes;
      if (scopeCapacity) {
        e.capacity = *scopeCapacity;
        // What the rest of the scope held when the loop was solved.
        int64_t outside = *scopeCapacity - group->capacity;
        e.bytesWithOneMore = outside + inGroup + e.bytesPerVersion;
      }
      fitsOneMore = inGroup + e.bytesPerVersion <= group->capacity;
    }
    int64_t lowerBound = iiLowerBound(p);
    e.loopLowerBound = lowerBound;
    if (e.versions >= e.bound) {
      // Lift every cap that the schedule reached; this storage's cap holds
      // the bound up when lifting all but it leaves the bound higher.
      SchedulingProblem all = p, allButThis = p;
      for (size_t k = 0; k < p.versions.size(); ++k) {
        if (needed[k] < p.versions[k].maxVersions) continue;
        all.versions[k].maxVersions += kLift;
        if (k != var) allButThis.versions[k].maxVersions += kLift;
      }
      int64_t lifted = iiLowerBound(all);
      if (lifted < lowerBound && iiLowerBound(allButThis) > lifted) {
        e.reason = VersionReason::NumStages;
        e.iiBoundWithMoreVersions = lifted;
      }
      return;
    }
    if (fitsOneMore) return;
    e.iiBoundAtCount = boundWithCap(p, var, e.versions);
    e.iiBoundAtBound = lowerBound;
    if (*e.iiBoundAtCount > lowerBound) e.reason = VersionReason::Capacity;
  }

  const KernelAnalysis& analysis_;
  const ir::Kernel& kernel_;
  const KernelSchedule& schedule_;
  const Target& target_;
};

}  // namespace

KernelExplanation explainSchedule(const KernelAnalysis& analysis, const ir::Kernel& kernel,
                                  const KernelSchedule& schedule, const Target& target) {
  KernelExplanation out;
  // Loops in program order.
  ir::forEachStmt(kernel.body, [&](const ir::Stmt& s) {
    const auto* f = ir::as<ir::ForStmt>(s);
    const ListSchedule* ls = f ? schedule.find(f) : nullptr;
    if (ls) out.loops.push_back(explainLoop(*ls, analysis.findLoop(f)));
  });
  StorageExplainer explainer(analysis, kernel, schedule, target);
  for (const StorageDecision& d : schedule.storages)
    if (d.storage && d.storage->scope != MemScope::Global)
      out.storages.push_back(explainer.explain(d));
  return out;
}

const analysis::Unit* explanationUnit(const LoopExplanation& e, int index) {
  if (!e.list || index < 0 || index >= static_cast<int>(e.list->units.size())) return nullptr;
  return &e.list->units[index];
}

const analysis::Dependency* depOf(const LoopExplanation& e, const RecurrenceEdge& edge) {
  if (!e.list || edge.dep < 0 || edge.dep >= static_cast<int>(e.list->deps.size())) return nullptr;
  return &e.list->deps[edge.dep];
}

std::string depWhat(const analysis::Dependency* d) {
  if (!d) return "window";  // two units of one pipe stay within one II
  return std::string(analysis::depKindName(d->kind));
}

std::string depOn(const analysis::Dependency* d) {
  if (!d) return "";
  if (d->storage) return d->storage->name;
  if (d->var) return d->var->name;
  return "";
}

}  // namespace tilesched::schedule
