// Builds a SchedulingProblem from a unit list (see Problem.h).
#include "schedule/Problem.h"

#include <algorithm>

#include "analysis/Dependencies.h"
#include "ir/IROperator.h"

namespace tilesched::schedule {

using namespace analysis;

std::optional<int64_t> fixedVersionCount(const ir::Kernel& kernel, const ir::Storage& storage) {
  std::optional<int64_t> out;
  for (const auto& spec : kernel.annotations.bufferVersions)
    if (spec.storage == storage && spec.count && !spec.isOptOut()) out = *spec.count;
  return out;
}

bool countsEpochs(const ir::Kernel& kernel, const StorageOwnership& ownership) {
  std::optional<ir::VersionMode> mode;
  for (const auto& spec : kernel.annotations.bufferVersions)
    if (spec.storage == ownership.storage && spec.mode) mode = *spec.mode;
  if (mode == ir::VersionMode::Counter) return true;
  return (!mode || mode == ir::VersionMode::Auto) && ownership.owners.size() > 1;
}

namespace {

int storageIndex(const ir::Kernel& kernel, const ir::Storage& storage) {
  for (size_t i = 0; i < kernel.storages.size(); ++i)
    if (kernel.storages[i] == storage) return static_cast<int>(i);
  return -1;
}

int versionVariable(SchedulingProblem& p, const ir::Storage& storage, const VersionContext& ctx) {
  for (size_t k = 0; k < p.versions.size(); ++k)
    if (p.versions[k].storage == storage) return static_cast<int>(k);
  int index = storageIndex(*ctx.kernel, storage);
  const StorageOwnership* own = ctx.ownership->find(storage);
  ProblemVersion v;
  v.storage = storage;
  v.bytes = index >= 0 && ctx.alignedBytes ? (*ctx.alignedBytes)[index] : storage->bytes;
  v.minVersions = index >= 0 && ctx.chosen ? std::max<int64_t>(1, (*ctx.chosen)[index]) : 1;
  v.maxVersions = std::max(v.minVersions, own ? std::max<int64_t>(1, own->versionBound) : 1);
  p.versions.push_back(v);
  return static_cast<int>(p.versions.size()) - 1;
}

// SPEC §6.1: under enable_offset a counted storage with several versions is
// accessed at one stage. Conditional on this loop's version variable only when
// the loop is the storage's single owner; with several owners a later sibling
// may still raise the count, so the group always applies.
void addSameStageGroups(SchedulingProblem& p, const UnitList& list, const VersionContext& ctx) {
  for (size_t index = 0; index < ctx.kernel->storages.size(); ++index) {
    const ir::Storage& storage = ctx.kernel->storages[index];
    const StorageOwnership* own = ctx.ownership->find(storage);
    if (!own || !own->eligible || own->manual || own->optOut) continue;
    if (!countsEpochs(*ctx.kernel, *own)) continue;
    SameStageGroup group;
    group.storage = storage;
    for (const Unit& u : list.units) {
      bool touches = false;
      for (const auto& acc : u.accesses) touches |= acc.storage == storage;
      if (touches) group.units.push_back(u.index);
    }
    if (group.units.size() < 2) continue;
    if (auto fixed = fixedVersionCount(*ctx.kernel, storage)) {
      if (*fixed <= 1) continue;
    } else if (own->versionBound <= 1) {
      continue;
    } else if (own->owners.size() == 1) {
      for (size_t k = 0; k < p.versions.size(); ++k)
        if (p.versions[k].storage == storage) group.versionVar = static_cast<int>(k);
      // Owned by a loop nested in this list, already solved: its count is final.
      if (group.versionVar < 0 && ctx.chosen && (*ctx.chosen)[index] <= 1) continue;
    }
    p.sameStage.push_back(std::move(group));
  }
}

// A dependency this list carries across its iterations through a storage
// that a loop nested in both endpoints owns (issue 17 §2, cross-level): the
// owner's versions rotate on a clock that runs on across this list's
// iterations, so the next iteration's first epoch reuses the version of the
// owner's N-th last epoch here, not of its last: N - 1 of the owner's
// iterations earlier. The latency shrinks by that much (nothing when the
// owner has fewer trips than versions, or one version).
int64_t crossLevelLatency(const UnitList& list, const Dependency& d, const VersionContext& ctx) {
  if (d.distanceKind != DistanceKind::Carried || d.kind == DepKind::RAW || !d.storage)
    return d.latency;
  const StorageOwnership* own = ctx.ownership->find(d.storage);
  if (!own || !own->eligible || own->manual || own->optOut) return d.latency;
  if (!innerCarrier(list, d, *own)) return d.latency;
  const Unit* from = ownerUnitOnPath(list, d.fromPath, *own);
  int index = storageIndex(*ctx.kernel, d.storage);
  int64_t versions = index >= 0 && ctx.chosen ? (*ctx.chosen)[index] : 1;
  if (auto fixed = fixedVersionCount(*ctx.kernel, d.storage)) versions = *fixed;
  const analysis::LoopTiming& t = from->body->timing;
  if (versions < 2 || !t.tripsKnown || t.trips < versions) return d.latency;
  return std::max<int64_t>(0, d.latency - (versions - 1) * t.ii);
}

}  // namespace

bool keepsFixedStages(const SchedulingProblem& p, const std::vector<int64_t>& start, int64_t ii) {
  for (size_t i = 0; i < p.fixedStages.size() && i < start.size(); ++i)
    if (p.fixedStages[i] >= 0 && (ii <= 0 || ir::floorDiv(start[i], ii) != p.fixedStages[i]))
      return false;
  return true;
}

int64_t iiKeepingEveryStage(const SchedulingProblem& p) {
  int64_t total = 1, stages = 1;
  for (int i = 0; i < p.numUnits(); ++i) total += p.span(i) + p.latency[i];
  for (int64_t k : p.fixedStages) stages = std::max(stages, k + 1);
  return total * stages;
}

SchedulingProblem buildProblem(const UnitList& list, const VersionContext& ctx) {
  SchedulingProblem p;
  p.isLoop = !list.isRoot();
  if (const ir::ForStmt* loop = list.loop()) {
    p.enableOffset = loop->enableOffset;
    p.numStages = loop->numStages;
    p.programOrderStages = loop->enableOffset;
  }
  bool staged = false;
  for (const Unit& u : list.units) staged |= u.stmt && u.stmt->manualStage >= 0;
  for (const Unit& u : list.units) {
    if (staged && p.isLoop) p.fixedStages.push_back(u.stmt ? u.stmt->manualStage : -1);
    p.latency.push_back(std::max<int64_t>(0, u.latency));
    p.ii.push_back(std::max<int64_t>(1, u.ii));
    p.pipeMask.push_back(u.pipeMask);
  }
  for (const Dependency& d : list.deps) {
    ProblemDep pd;
    pd.from = d.from;
    pd.to = d.to;
    pd.latency = crossLevelLatency(list, d, ctx);
    switch (d.distanceKind) {
      case DistanceKind::Same:
        pd.distance = 0;
        break;
      case DistanceKind::Carried:
        pd.distance = 1;
        break;
      case DistanceKind::Exact:
        pd.distance = d.distance;
        break;
      case DistanceKind::Versioned: {
        const StorageOwnership* own = d.storage ? ctx.ownership->find(d.storage) : nullptr;
        if (auto fixed = d.storage ? fixedVersionCount(*ctx.kernel, d.storage) : std::nullopt) {
          pd.distance = std::max<int64_t>(1, *fixed);
        } else if (own && own->eligible && !own->manual && !own->optOut) {
          pd.versionVar = versionVariable(p, d.storage, ctx);
        } else {
          pd.distance = 1;
        }
        break;
      }
    }
    p.deps.push_back(pd);
  }
  for (const OwnerExclusion& e : list.exclusions)
    p.exclusions.push_back({e.a, e.b, e.forwardLatency, e.reverseLatency});
  if (p.isLoop && p.enableOffset) addSameStageGroups(p, list, ctx);
  return p;
}

}  // namespace tilesched::schedule
