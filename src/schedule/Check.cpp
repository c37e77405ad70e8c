// The independent checker (see Check.h). Plain loops over the analyses' unit
// lists; deliberately written without the scheduler's problem encoding.
#include "schedule/Check.h"

#include "ir/IROperator.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>

#include "analysis/Dependencies.h"

namespace tilesched::schedule {

using namespace analysis;

std::string_view scheduleErrorKindName(ScheduleErrorKind kind) {
  switch (kind) {
    case ScheduleErrorKind::Shape:
      return "shape";
    case ScheduleErrorKind::Dependency:
      return "dependency";
    case ScheduleErrorKind::PipeOverlap:
      return "pipe-overlap";
    case ScheduleErrorKind::OwnerExclusion:
      return "owner-exclusion";
    case ScheduleErrorKind::Window:
      return "window";
    case ScheduleErrorKind::PipeOrder:
      return "pipe-order";
    case ScheduleErrorKind::Capacity:
      return "capacity";
    case ScheduleErrorKind::Versions:
      return "versions";
    case ScheduleErrorKind::CounterStage:
      return "counter-stage";
  }
  return "shape";
}

namespace {

std::string where(const UnitList& list) {
  if (const ir::ForStmt* f = list.loop())
    return fmt::format("loop {} (line {})", f->var->name, f->loc.line);
  return "kernel root";
}

using ir::floorDiv;
using ir::floorMod;

int64_t occupancy(const Unit& u) { return std::max<int64_t>(1, u.ii); }

std::shared_ptr<UnitList> cloneTree(const UnitList& list) {
  auto out = std::make_shared<UnitList>(list);
  for (auto& u : out->units)
    if (u.isLoop() && u.body) u.body = cloneTree(*u.body);
  return out;
}

// Post-order: gives every loop body the timing of its schedule, then
// refreshes the latencies of the list that contains it.
void applyTimings(UnitList& list, const KernelSchedule& schedule) {
  for (auto& u : list.units)
    if (u.isLoop() && u.body) applyTimings(*u.body, schedule);
  if (const ir::ForStmt* f = list.loop()) {
    if (const ListSchedule* s = schedule.find(f);
        s && s->start.size() == list.units.size() && !list.units.empty()) {
      int64_t first = *std::min_element(s->start.begin(), s->start.end());
      list.timing.ii = std::max<int64_t>(1, s->ii);
      list.timing.start.clear();
      for (int64_t st : s->start) list.timing.start.push_back(st - first);
      list.timing.makespan = std::max<int64_t>(1, s->makespan);
      list.timing.estimated = false;
    }
  }
  recomputeDependencyLatencies(list);
}

void collect(UnitList& list, std::vector<UnitList*>& out) {
  for (auto& u : list.units)
    if (u.isLoop() && u.body) collect(*u.body, out);
  out.push_back(&list);
}

}  // namespace

bool clockedByCounter(const ir::Kernel& kernel, const Ownership& ownership,
                      const ir::Storage& storage) {
  const StorageOwnership* own = ownership.find(storage);
  if (!own || !own->eligible || own->manual || own->optOut) return false;
  bool counter = false, iteration = false;
  for (const auto& spec : kernel.annotations.bufferVersions) {
    if (spec.storage != storage || !spec.mode) continue;
    counter = *spec.mode == ir::VersionMode::Counter;
    iteration = *spec.mode == ir::VersionMode::Iteration;
  }
  return counter || (!iteration && own->owners.size() > 1);
}

std::vector<ScheduleError> checkListSchedule(
    const UnitList& list, const ListSchedule& s,
    const std::function<int64_t(const ir::Storage&)>& versionsOf,
    const std::function<bool(const ir::Storage&)>& clockedByCounter) {
  std::vector<ScheduleError> errors;
  const ir::ForStmt* loop = list.loop();
  auto fail = [&](ScheduleErrorKind kind, std::string message) {
    errors.push_back({kind, loop, where(list) + ": " + message});
  };
  size_t n = list.units.size();
  if (s.start.size() != n || s.stage.size() != n) {
    fail(ScheduleErrorKind::Shape,
         fmt::format("{} units but {} starts and {} stages", n, s.start.size(), s.stage.size()));
    return errors;
  }
  if (s.ii < 1) {
    fail(ScheduleErrorKind::Shape, fmt::format("II {} is below 1", s.ii));
    return errors;
  }
  bool isLoop = loop != nullptr;
  int64_t first = n ? *std::min_element(s.start.begin(), s.start.end()) : 0;
  for (size_t i = 0; i < n; ++i) {
    const Unit& u = list.units[i];
    if (s.start[i] < 0)
      fail(ScheduleErrorKind::Shape, fmt::format("#{} starts at {}", i, s.start[i]));
    if (isLoop && s.stage[i] != floorDiv(s.start[i], s.ii))
      fail(ScheduleErrorKind::Shape, fmt::format("#{} has stage {} but starts at {} with II {}", i,
                                                 s.stage[i], s.start[i], s.ii));
    int64_t end = s.start[i] + std::max(u.latency, occupancy(u)) - first;
    if (isLoop && end > s.makespan)
      fail(
          ScheduleErrorKind::Shape,
          fmt::format("#{} completes at {} after the iteration's makespan {}", i, end, s.makespan));
    if (!isLoop && s.start[i] + std::max(u.latency, occupancy(u)) > s.ii)
      fail(ScheduleErrorKind::Shape, fmt::format("#{} completes after the makespan {}", i, s.ii));
  }

  for (const Dependency& d : list.deps) {
    int64_t distance = 0;
    switch (d.distanceKind) {
      case DistanceKind::Same:
        distance = 0;
        break;
      case DistanceKind::Carried:
        distance = 1;
        break;
      case DistanceKind::Exact:
        distance = d.distance;
        break;
      case DistanceKind::Versioned:
        distance = d.storage ? versionsOf(d.storage) : 1;
        break;
    }
    if (!isLoop && distance > 0) continue;  // no later iteration of the root
    int64_t gap = s.start[d.to] - s.start[d.from];
    int64_t need = d.latency - s.ii * distance;
    if (gap < need)
      fail(ScheduleErrorKind::Dependency,
           fmt::format("{} #{} -> #{} on {} needs s{} - s{} >= {} - {}·{} but it is {}",
                       depKindName(d.kind), d.from, d.to,
                       d.storage ? d.storage->name : (d.var ? d.var->name : "?"), d.to, d.from,
                       d.latency, s.ii, distance, gap));
  }

  for (size_t a = 0; a < n; ++a) {
    const Unit& ua = list.units[a];
    if (isLoop && ua.pipeMask && occupancy(ua) > s.ii)
      fail(ScheduleErrorKind::PipeOverlap,
           fmt::format("#{} occupies its pipe {} cycles, longer than II {}", a, occupancy(ua),
                       s.ii));
    for (size_t b = a + 1; b < n; ++b) {
      const Unit& ub = list.units[b];
      if (!(ua.pipeMask & ub.pipeMask)) continue;
      bool overlap;
      if (isLoop) {
        int64_t d = floorMod(s.start[b] - s.start[a], s.ii);  // b's busy start after a's
        overlap = d < occupancy(ua) || s.ii - d < occupancy(ub);
      } else {
        overlap =
            s.start[a] < s.start[b] + occupancy(ub) && s.start[b] < s.start[a] + occupancy(ua);
      }
      if (overlap)
        fail(ScheduleErrorKind::PipeOverlap,
             fmt::format("#{} [{}, +{}) and #{} [{}, +{}) overlap on {}{}", a, s.start[a],
                         occupancy(ua), b, s.start[b], occupancy(ub),
                         pipeMaskName(ua.pipeMask & ub.pipeMask),
                         isLoop ? fmt::format(" modulo II {}", s.ii) : ""));
      // A flat body is issued in program order and a pipe starts its
      // instructions in issue order: the later unit starts after the earlier
      // one's busy interval, in every iteration.
      if (isLoop && !s.enableOffset && s.start[b] - s.start[a] < occupancy(ua))
        fail(ScheduleErrorKind::PipeOrder,
             fmt::format("#{} at {} starts before #{} at {} (+{}) on {}, but a flat body issues "
                         "them in program order",
                         b, s.start[b], a, s.start[a], occupancy(ua),
                         pipeMaskName(ua.pipeMask & ub.pipeMask)));
      if (isLoop && !s.enableOffset && std::abs(s.start[a] - s.start[b]) >= s.ii)
        fail(ScheduleErrorKind::Window,
             fmt::format("#{} at {} and #{} at {} share {} but are not within one II window of {}",
                         a, s.start[a], b, s.start[b], pipeMaskName(ua.pipeMask & ub.pipeMask),
                         s.ii));
    }
  }

  for (const OwnerExclusion& e : list.exclusions) {
    int64_t sa = s.start[e.a], sb = s.start[e.b];
    bool aFirst = sb - sa >= e.forwardLatency && (!isLoop || sa + s.ii - sb >= e.reverseLatency);
    bool bFirst = sa - sb >= e.reverseLatency && (!isLoop || sb + s.ii - sa >= e.forwardLatency);
    if (!aFirst && !bFirst)
      fail(ScheduleErrorKind::OwnerExclusion,
           fmt::format(
               "#{} and #{} both own {} but overlap (starts {} and {}, latencies {} and {})", e.a,
               e.b, e.storage ? e.storage->name : "?", sa, sb, e.forwardLatency, e.reverseLatency));
  }

  if (isLoop && s.enableOffset && clockedByCounter) {
    std::vector<ir::Storage> seen;
    for (const Unit& u : list.units)
      for (const Access& acc : u.accesses)
        if (acc.storage && std::find(seen.begin(), seen.end(), acc.storage) == seen.end())
          seen.push_back(acc.storage);
    for (const ir::Storage& st : seen) {
      if (versionsOf(st) <= 1 || !clockedByCounter(st)) continue;
      int first = -1;
      for (size_t i = 0; i < n; ++i) {
        bool touches = false;
        for (const Access& acc : list.units[i].accesses) touches |= acc.storage == st;
        if (!touches) continue;
        if (first < 0) {
          first = static_cast<int>(i);
        } else if (s.stage[i] != s.stage[first]) {
          fail(ScheduleErrorKind::CounterStage,
               fmt::format("{} has {} versions clocked by a counter but is accessed at stage {} "
                           "(#{}) and stage {} (#{})",
                           st->name, versionsOf(st), s.stage[first], first, s.stage[i], i));
          break;
        }
      }
    }
  }
  return errors;
}

std::vector<ScheduleError> checkSchedule(const KernelSchedule& schedule,
                                         const KernelAnalysis& analysis, const ir::Kernel& kernel,
                                         const Target& target) {
  std::vector<ScheduleError> errors;
  auto versionsOf = [&](const ir::Storage& st) { return schedule.versionsOf(st); };

  // Versions.
  for (const auto& st : kernel.storages) {
    const StorageDecision* d = schedule.find(st);
    if (!d) {
      errors.push_back({ScheduleErrorKind::Shape, nullptr,
                        fmt::format("storage {} has no version decision", st->name)});
      continue;
    }
    if (d->versions < 1)
      errors.push_back({ScheduleErrorKind::Versions, nullptr,
                        fmt::format("{} has {} versions", st->name, d->versions)});
    const StorageOwnership* own = analysis.ownership.find(st);
    if (d->source == VersionSource::Solver && own && d->versions > own->versionBound)
      errors.push_back({ScheduleErrorKind::Versions, nullptr,
                        fmt::format("{} has {} versions, above its bound {}", st->name, d->versions,
                                    own->versionBound)});
    for (const auto& spec : kernel.annotations.bufferVersions) {
      bool fixed = spec.storage == st && spec.count && !(*spec.count == 1 && !spec.mode);
      if (fixed && own && own->eligible && d->versions != *spec.count)
        errors.push_back({ScheduleErrorKind::Versions, nullptr,
                          fmt::format("{} is fixed at {} versions but has {}", st->name,
                                      *spec.count, d->versions)});
    }
  }

  // Every list, with latencies from the schedule's own inner solutions.
  auto root = cloneTree(analysis.root);
  applyTimings(*root, schedule);
  std::vector<UnitList*> lists;
  collect(*root, lists);
  for (UnitList* list : lists) {
    const ListSchedule* s = schedule.find(list->loop());
    if (!s) {
      errors.push_back(
          {ScheduleErrorKind::Shape, list->loop(), where(*list) + ": has no schedule"});
      continue;
    }
    auto more = checkListSchedule(*list, *s, versionsOf, [&](const ir::Storage& st) {
      return clockedByCounter(kernel, analysis.ownership, st);
    });
    errors.insert(errors.end(), more.begin(), more.end());
  }

  // Capacity.
  for (MemScope scope : kCapacityScopes) {
    bool unlimited = false;
    for (MemScope u : kernel.annotations.unlimited) unlimited |= u == scope;
    auto capacity = target.capacity(scope, kernel.hasSimtVF);
    if (unlimited || !capacity) continue;
    int64_t used = 0;
    for (const auto& st : kernel.storages) {
      if (st->scope != scope) continue;
      int64_t align = std::max<int64_t>(1, target.alignment(scope));
      int64_t one = (std::max<int64_t>(0, st->bytes) + align - 1) / align * align;
      bool manual = false;
      for (const auto& m : kernel.annotations.manual) manual |= m.storage == st;
      used += manual ? one : one * versionsOf(st);
    }
    if (used > *capacity)
      errors.push_back({ScheduleErrorKind::Capacity, nullptr,
                        fmt::format("scope {} holds {} bytes, above its capacity {}",
                                    memScopeName(scope), used, *capacity)});
  }
  return errors;
}

std::string formatScheduleErrors(const std::vector<ScheduleError>& errors) {
  std::string out;
  for (const auto& e : errors)
    out += fmt::format("{}: {}\n", scheduleErrorKindName(e.kind), e.message);
  return out;
}

}  // namespace tilesched::schedule
