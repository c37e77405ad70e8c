// Step 2 of the synchronisation pass (SyncInsertionImpl.h): one candidate
// per dependency of the list: a flag between two pipes, a barrier on one
// pipe that completes out of order, or nothing (same pipe in order, or no
// later iteration to protect). Owner exclusions become dependencies both
// ways; a dependency on a loop unit is expanded over the leaves that make
// the access. Guarantees candidates sorted by span (distance, then slots).
#include "transform/SyncInsertionImpl.h"

#include <fmt/format.h>

namespace tilesched::transform::sync_detail {

using namespace ir;
using analysis::UnitList;

namespace {

// The list's dependencies and those of its owner exclusions: sibling owners
// of one storage order the two units as written, so every conflicting access
// pair becomes a dependency, forward in the iteration and, in a loop, from
// the second unit to the first one iteration later.
std::vector<analysis::Dependency> withExclusions(const UnitList& list, bool isLoop) {
  std::vector<analysis::Dependency> deps = list.deps;
  for (const auto& ex : list.exclusions) {
    for (const auto& x : list.units[static_cast<size_t>(ex.a)].accesses) {
      if (x.storage != ex.storage) continue;
      for (const auto& y : list.units[static_cast<size_t>(ex.b)].accesses) {
        if (y.storage != ex.storage || (!x.isWrite() && !y.isWrite())) continue;
        analysis::Dependency d;
        d.kind = x.isWrite() ? (y.isWrite() ? analysis::DepKind::WAW : analysis::DepKind::RAW)
                             : analysis::DepKind::WAR;
        d.storage = ex.storage;
        d.from = ex.a;
        d.to = ex.b;
        d.fromPath = {ex.a};
        d.fromPath.insert(d.fromPath.end(), x.path.begin(), x.path.end());
        d.toPath = {ex.b};
        d.toPath.insert(d.toPath.end(), y.path.begin(), y.path.end());
        d.fromScalar = x.scalarOperand;
        d.toScalar = y.scalarOperand;
        deps.push_back(d);
        if (!isLoop) continue;
        // The same pair the other way round, one iteration later: a read
        // after a write is now a write after that read, and the other way
        // (the kind picks the leaves the expansion below orders; keeping
        // RAW here ordered the reader's writes instead of its read, random
        // seed 5405).
        std::swap(d.from, d.to);
        std::swap(d.fromPath, d.toPath);
        std::swap(d.fromScalar, d.toScalar);
        if (d.kind == analysis::DepKind::RAW)
          d.kind = analysis::DepKind::WAR;
        else if (d.kind == analysis::DepKind::WAR)
          d.kind = analysis::DepKind::RAW;
        d.distanceKind = analysis::DistanceKind::Carried;
        d.distance = 1;
        deps.push_back(d);
      }
    }
  }
  return deps;
}

// A dependency on a loop unit names one of its leaf tasks; every leaf that
// makes an access of the right kind must be ordered (they may sit on
// different pipes), so the dependency is expanded over all of them.
// (A leaf is a path and whether the access is a scalar operand read.)
std::vector<analysis::Dependency> overLeaves(const UnitList& list,
                                             const std::vector<analysis::Dependency>& deps) {
  using Leaf = std::pair<std::vector<int>, bool>;
  auto leafPaths = [&](int unit, const ir::Storage& st, bool writes) {
    std::vector<Leaf> paths;
    for (const auto& acc : list.units[static_cast<size_t>(unit)].accesses) {
      if (acc.storage != st || (writes && !acc.isWrite())) continue;
      if (!writes && acc.isWrite()) continue;
      std::vector<int> path{unit};
      path.insert(path.end(), acc.path.begin(), acc.path.end());
      paths.emplace_back(path, acc.scalarOperand);
    }
    return paths;
  };
  std::vector<analysis::Dependency> expanded;
  for (const auto& dep : deps) {
    bool loops = dep.storage && (list.units[static_cast<size_t>(dep.from)].isLoop() ||
                                 list.units[static_cast<size_t>(dep.to)].isLoop());
    if (!loops) {
      expanded.push_back(dep);
      continue;
    }
    bool fromWrites = dep.kind != analysis::DepKind::WAR;
    bool toWrites = dep.kind != analysis::DepKind::RAW;
    auto froms = leafPaths(dep.from, dep.storage, fromWrites);
    auto tos = leafPaths(dep.to, dep.storage, toWrites);
    if (froms.empty()) froms.emplace_back(dep.fromPath, dep.fromScalar);
    if (tos.empty()) tos.emplace_back(dep.toPath, dep.toScalar);
    for (const auto& f : froms)
      for (const auto& t : tos) {
        analysis::Dependency d = dep;
        std::tie(d.fromPath, d.fromScalar) = f;
        std::tie(d.toPath, d.toScalar) = t;
        expanded.push_back(d);
      }
  }
  return expanded;
}

}  // namespace

std::vector<Cand> Lowerer::candidates(const ListState& ls) const {
  const UnitList& list = ls.list;
  const ForStmt* loop = ls.loop;
  bool isLoop = ls.isLoop;
  const Expr& loopClock = ls.loopClock;
  const auto& slotOf = ls.slotOf;
  const int64_t numSlots = ls.numSlots;
  const auto& stageOf = ls.stageOf;
  bool staged = ls.staged;
  bool singleTrip = ls.singleTrip;
  std::vector<Cand> cands;
  std::vector<analysis::Dependency> deps = overLeaves(list, withExclusions(list, isLoop));
  for (const auto& dep : deps) {
    if (!dep.storage) continue;  // scalar values are captured when an instruction issues
    if (orderedByInnerRings(list, dep)) continue;
    Pipe p = accessPipe(list, dep.from, dep.fromPath, dep.storage, dep.fromScalar);
    Pipe q = accessPipe(list, dep.to, dep.toPath, dep.storage, dep.toScalar);
    int64_t a = slotOf[static_cast<size_t>(dep.from)], b = slotOf[static_cast<size_t>(dep.to)];
    Edge e;
    e.src = p;
    e.dst = q;
    e.loc = list.units[static_cast<size_t>(dep.to)].loc;
    e.clock = loopClock;
    const StorageLowering* sl = plan_.find(dep.storage);
    if (!isLoop) {
      e.d = 0;
    } else {
      switch (dep.distanceKind) {
        case analysis::DistanceKind::Same:
          e.d = 0;
          break;
        case analysis::DistanceKind::Versioned:
          e.d = sl ? std::max<int64_t>(1, sl->mode ? sl->versions : 1) : 1;
          if (sl && sl->mode) {
            auto c = sl->clock.find(loop);
            if (c != sl->clock.end()) {
              e.clock = c->second;
              e.storageClock = true;
              e.dKnown = *sl->mode == VersionMode::Iteration;
            }
          }
          break;
        case analysis::DistanceKind::Carried:
          e.d = 1;
          break;
        case analysis::DistanceKind::Exact:
          e.d = dep.distance;
          break;
      }
    }
    if (staged) {
      // Distances count staged iterations; rings use the loop's own clock.
      e.d += stageOf[static_cast<size_t>(dep.to)] - stageOf[static_cast<size_t>(dep.from)];
      e.clock = loopClock;
      e.storageClock = false;
      e.dKnown = true;
    }
    if (e.d == 0 && a >= b) continue;  // not a forward dependency within one iteration
    // A loop of one trip (or none) has no later iteration to protect: its
    // body runs once per entry, and what crosses entries is the enclosing
    // list's dependency (upstream test_flag_allocation: no reverse flag).
    if (e.d > 0 && isLoop && !staged && singleTrip) continue;
    if (p == q) {
      if (inOrder(target_, p)) continue;
      e.kind = Edge::Barrier;
      e.waitPos = pos(b, kBarrier);
      e.setPos = pos(a, kWork);
    } else {
      e.setPos = pos(a + 1, kSet);
      e.waitPos = pos(b, kWait);
    }
    cands.push_back(Cand{e, e.d * (numSlots + 1) + (b - a), a, b});
  }
  std::stable_sort(cands.begin(), cands.end(),
                   [](const Cand& x, const Cand& y) { return x.span < y.span; });
  return cands;
}

}  // namespace tilesched::transform::sync_detail
