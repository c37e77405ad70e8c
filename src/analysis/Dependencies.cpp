// Dependencies (see Dependencies.h). Steps per list, inner lists first:
// refresh loop-unit latencies, pair up accesses, classify and deduplicate,
// re-estimate the list's timing.
#include "analysis/Dependencies.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "ir/IROperator.h"

namespace tilesched::analysis {

using namespace ir;

namespace {

int64_t finishOffset(const Unit& u, const std::vector<int>& path, size_t pos) {
  if (!u.isLoop() || pos >= path.size() || !u.body) return u.latency;
  const UnitList& b = *u.body;
  int k = path[pos];
  if (k < 0 || static_cast<size_t>(k) >= b.units.size() || b.timing.start.size() != b.units.size())
    return u.latency;
  int64_t earlier = std::max<int64_t>(b.timing.trips - 1, 0);
  return earlier * b.timing.ii + b.timing.start[k] + finishOffset(b.units[k], path, pos + 1);
}

int64_t startOffset(const Unit& u, const std::vector<int>& path, size_t pos) {
  if (!u.isLoop() || pos >= path.size() || !u.body) return 0;
  const UnitList& b = *u.body;
  int k = path[pos];
  if (k < 0 || static_cast<size_t>(k) >= b.units.size() || b.timing.start.size() != b.units.size())
    return 0;
  return b.timing.start[k] + startOffset(b.units[k], path, pos + 1);
}

// Owner loops of `storage` that are `u` or nested in it.
void ownersIn(const Unit& u, const StorageOwnership& so, std::vector<const StmtNode*>& out) {
  for (const auto& o : so.owners)
    if (o == u.stmt) out.push_back(o.get());
  if (!u.isLoop()) return;
  for (const auto& inner : u.body->units) ownersIn(inner, so, out);
}

class ListDeps {
 public:
  ListDeps(UnitList& list, const Ownership& own, OverlapOracle& oracle)
      : list_(list), own_(own), oracle_(oracle) {}

  void run() {
    const ForStmt* loop = list_.loop();
    list_.deps.clear();
    list_.exclusions.clear();
    index_.clear();
    const auto& units = list_.units;
    // Accesses by target (storage, or scalar variable), in program order, so
    // that a unit meets only the units that touch what it touches; per
    // unit, its pairs are then visited in the order of the full (j, a, b)
    // scan, which fixes the order of the dependencies and exclusions.
    std::map<const void*, std::vector<std::pair<int, int>>> byTarget;
    auto target = [](const Access& a) {
      return a.isScalarVar() ? static_cast<const void*>(a.var.get())
                             : static_cast<const void*>(a.storage.get());
    };
    for (size_t j = 0; j < units.size(); ++j)
      for (size_t k = 0; k < units[j].accesses.size(); ++k)
        byTarget[target(units[j].accesses[k])].push_back(
            {static_cast<int>(j), static_cast<int>(k)});
    std::vector<std::tuple<int, int, int>> pairs;  // (j, a's index, b's index)
    for (size_t i = 0; i < units.size(); ++i) {
      pairs.clear();
      for (size_t ka = 0; ka < units[i].accesses.size(); ++ka) {
        const Access& a = units[i].accesses[ka];
        for (auto [j, kb] : byTarget[target(a)]) {
          const Access& b = units[j].accesses[kb];
          if (!a.isWrite() && !b.isWrite()) continue;
          // One target key per storage or variable: a scalar and a storage never share one.
          if (a.isScalarVar() != b.isScalarVar()) continue;
          pairs.emplace_back(j, static_cast<int>(ka), kb);
        }
      }
      std::sort(pairs.begin(), pairs.end());
      for (auto [j, ka, kb] : pairs) {
        const Access& a = units[i].accesses[ka];
        const Access& b = units[j].accesses[kb];
        if (!a.isScalarVar() && excluded(static_cast<int>(i), j, a.storage)) continue;
        pair(static_cast<int>(i), j, a, b, loop);
      }
    }
    mergeRingDistances();
    std::stable_sort(list_.deps.begin(), list_.deps.end(),
                     [](const Dependency& x, const Dependency& y) {
                       return std::tie(x.from, x.to) < std::tie(y.from, y.to);
                     });
  }

 private:
  void pair(int i, int j, const Access& a, const Access& b, const ForStmt* loop) {
    DepKind kind = a.isWrite() ? (b.isWrite() ? DepKind::WAW : DepKind::RAW) : DepKind::WAR;
    std::vector<int> from{i}, to{j};
    from.insert(from.end(), a.path.begin(), a.path.end());
    to.insert(to.end(), b.path.begin(), b.path.end());
    // A let (`off = s * 64` in a loop body) is a fresh value in every
    // iteration, held in a scalar register and read by an instruction when
    // the scalar unit issues it (SPEC §4.2): its definition must come before
    // its uses, and nothing else orders it. The scalar unit issues a body in
    // program order, so a use before a re-binding in the same body has read
    // its value before the re-binding runs: no WAR, no WAW, nothing carried.
    if (a.isScalarVar()) {
      if (kind == DepKind::RAW && i < j) add(kind, i, j, DistanceKind::Same, 0, a, b, from, to);
      return;
    }
    if (i < j && oracle_.mayOverlap(a, b, loop, 0)) {
      add(kind, i, j, DistanceKind::Same, 0, a, b, from, to);
      return;  // any later-iteration instance is implied by this one
    }
    if (!loop) return;
    const StorageOwnership* so = own_.find(a.storage);
    if (so && so->manual) {
      int64_t ring = std::max<int64_t>(so->ring, 1);
      if (auto d = oracle_.smallestShift(a, b, loop, 1, ring)) {
        add(kind, i, j, DistanceKind::Exact, *d, a, b, from, to);
        return;
      }
      // A guard can rule out every shift up to the ring (a slot written every
      // other iteration) while a farther one still reuses the slot (random
      // seed 6321: `if i % 2 == 0` around a one-slot ring): order the first
      // such shift, or, past the search, the one just beyond the ring.
      // Unguarded accesses keep the ring's promise: a slot is reused only at the
      // distances the ring orders (AnalysisTest ManualRing).
      if (a.guard.empty() && b.guard.empty()) return;
      if (!oracle_.mayOverlap(a, b, loop, std::nullopt)) return;
      int64_t hi = ring + 64;
      if (auto trips = ir::asConstInt(loop->extent)) hi = std::min(hi, *trips - 1);
      auto d = oracle_.smallestShift(a, b, loop, ring + 1, hi);
      add(kind, i, j, DistanceKind::Exact, d ? *d : ring + 1, a, b, from, to);
      return;
    }
    if (!oracle_.mayOverlap(a, b, loop, std::nullopt)) return;
    bool versioned = own_.isOwner(loop, a.storage);
    add(kind, i, j, versioned ? DistanceKind::Versioned : DistanceKind::Carried, 1, a, b, from, to);
  }

  // Several distances of one (kind, producer, consumer, storage) — a ring read
  // at two slots — collapse to the smallest distance with the largest
  // latency, which implies all of them (s_w - s_u >= l - II·d is tightest there).
  void mergeRingDistances() {
    auto exactish = [](const Dependency& d) {
      return d.distanceKind == DistanceKind::Same || d.distanceKind == DistanceKind::Exact;
    };
    std::vector<Dependency> kept;
    // At most one exactish dependency per key is kept: later ones merge into it.
    std::map<std::tuple<int, int, int, const void*, const void*, bool, bool>, size_t> exactIndex;
    for (auto& d : list_.deps) {
      Dependency* same = nullptr;
      auto key = std::make_tuple(static_cast<int>(d.kind), d.from, d.to,
                                 static_cast<const void*>(d.storage.get()),
                                 static_cast<const void*>(d.var.get()), d.fromScalar, d.toScalar);
      if (exactish(d)) {
        auto it = exactIndex.find(key);
        if (it != exactIndex.end()) same = &kept[it->second];
      }
      if (!same) {
        if (exactish(d)) exactIndex.emplace(key, kept.size());
        kept.push_back(std::move(d));
        continue;
      }
      if (d.distance < same->distance) {
        same->distance = d.distance;
        same->distanceKind = d.distanceKind;
      }
      if (d.latency > same->latency) {
        same->latency = d.latency;
        same->fromPath = d.fromPath;
        same->toPath = d.toPath;
      }
    }
    list_.deps = std::move(kept);
  }

  bool excluded(int i, int j, const Storage& s) {
    const StorageOwnership* so = own_.find(s);
    if (!so || !so->eligible || so->owners.size() < 2 || i == j) return false;
    std::vector<const StmtNode*> oi, oj;
    ownersIn(list_.units[i], *so, oi);
    ownersIn(list_.units[j], *so, oj);
    if (oi.empty() || oj.empty()) return false;
    int a = std::min(i, j), b = std::max(i, j);
    for (const auto& e : list_.exclusions)
      if (e.a == a && e.b == b && e.storage == s) return true;
    OwnerExclusion e;
    e.a = a;
    e.b = b;
    e.storage = s;
    e.forwardLatency = list_.units[a].latency;
    e.reverseLatency = list_.units[b].latency;
    list_.exclusions.push_back(e);
    return true;
  }

  // Dependencies of one (kind, units, distance, storage) collapse to the
  // tightest latency, but not across the pipes that make them: a scalar
  // operand read (on S) and the task's own read are synchronised apart.
  void add(DepKind kind, int i, int j, DistanceKind dk, int64_t distance, const Access& a,
           const Access& b, const std::vector<int>& from, const std::vector<int>& to) {
    int64_t latency = dependencyLatency(list_, from, to);
    DepKey key{static_cast<int>(kind),
               i,
               j,
               static_cast<int>(dk),
               distance,
               a.storage.get(),
               a.var.get(),
               a.scalarOperand,
               b.scalarOperand};
    auto found = index_.find(key);
    if (found != index_.end()) {
      Dependency& d = list_.deps[found->second];
      if (latency > d.latency) {
        d.latency = latency;
        d.fromPath = from;
        d.toPath = to;
      }
      return;
    }
    Dependency d;
    d.kind = kind;
    d.from = i;
    d.to = j;
    d.distanceKind = dk;
    d.distance = distance;
    d.latency = latency;
    d.storage = a.storage;
    d.var = a.var;
    d.fromPath = from;
    d.toPath = to;
    d.fromScalar = a.scalarOperand;
    d.toScalar = b.scalarOperand;
    index_.emplace(key, list_.deps.size());
    list_.deps.push_back(std::move(d));
  }

  // One dependency per (kind, producer, consumer, distance, target): add()
  // finds it without scanning the list.
  using DepKey = std::tuple<int, int, int, int, int64_t, const void*, const void*, bool, bool>;
  std::map<DepKey, size_t> index_;

  UnitList& list_;
  const Ownership& own_;
  OverlapOracle& oracle_;
};

void process(UnitList& list, const Ownership& own, OverlapOracle& oracle) {
  for (auto& u : list.units)
    if (u.isLoop()) {
      process(*u.body, own, oracle);
      u.latency = u.ii = std::max<int64_t>(1, u.body->timing.totalTime());
    }
  ListDeps(list, own, oracle).run();
  if (list.timing.estimated) list.timing = estimateTiming(list);
}

}  // namespace

int64_t dependencyLatency(const UnitList& list, const std::vector<int>& fromPath,
                          const std::vector<int>& toPath) {
  if (fromPath.empty() || toPath.empty()) return 0;
  const Unit& p = list.units.at(fromPath[0]);
  const Unit& c = list.units.at(toPath[0]);
  return std::max<int64_t>(0, finishOffset(p, fromPath, 1) - startOffset(c, toPath, 1));
}

void computeDependencies(UnitList& root, const Ownership& ownership, OverlapOracle& oracle) {
  process(root, ownership, oracle);
}

void recomputeDependencyLatencies(UnitList& list) {
  for (auto& u : list.units)
    if (u.isLoop()) u.latency = u.ii = std::max<int64_t>(1, u.body->timing.totalTime());
  for (auto& d : list.deps) d.latency = dependencyLatency(list, d.fromPath, d.toPath);
  for (auto& e : list.exclusions) {
    e.forwardLatency = list.units[e.a].latency;
    e.reverseLatency = list.units[e.b].latency;
  }
}

const Dependency* innerCarrier(const UnitList& list, const Dependency& outer,
                               const StorageOwnership& own) {
  size_t fromDepth = 0, toDepth = 0;
  const Unit* from = ownerUnitOnPath(list, outer.fromPath, own, &fromDepth);
  const Unit* to = ownerUnitOnPath(list, outer.toPath, own, &toDepth);
  if (!from || from != to || fromDepth != toDepth || !from->body) return nullptr;
  std::vector<int> fromRest(outer.fromPath.begin() + static_cast<long>(fromDepth) + 1,
                            outer.fromPath.end());
  std::vector<int> toRest(outer.toPath.begin() + static_cast<long>(toDepth) + 1,
                          outer.toPath.end());
  for (const auto& d : from->body->deps)
    if (d.kind == outer.kind && d.storage == outer.storage &&
        d.distanceKind != DistanceKind::Same && d.fromPath == fromRest && d.toPath == toRest)
      return &d;
  return nullptr;
}

}  // namespace tilesched::analysis
