// Dependencies (see Dependencies.h). Steps per list, inner lists first:
// refresh loop-unit latencies, pair up accesses, classify and deduplicate,
// re-estimate the list's timing.
#include "analysis/Dependencies.h"

#include <algorithm>
#include <map>
#include <tuple>

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
    const auto& units = list_.units;
    for (size_t i = 0; i < units.size(); ++i) {
      for (size_t j = 0; j < units.size(); ++j) {
        for (const auto& a : units[i].accesses) {
          for (const auto& b : units[j].accesses) {
            if (!a.isWrite() && !b.isWrite()) continue;
            bool sameTarget = a.isScalarVar() ? (b.isScalarVar() && a.var == b.var)
                                              : (!b.isScalarVar() && a.storage == b.storage);
            if (!sameTarget) continue;
            if (!a.isScalarVar() && excluded(static_cast<int>(i), static_cast<int>(j), a.storage))
              continue;
            pair(static_cast<int>(i), static_cast<int>(j), a, b, loop);
          }
        }
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
    if (i < j && oracle_.mayOverlap(a, b, loop, 0)) {
      add(kind, i, j, DistanceKind::Same, 0, a, b, from, to);
      return;  // any later-iteration instance is implied by this one
    }
    if (!loop) return;
    if (a.isScalarVar()) {
      add(kind, i, j, DistanceKind::Carried, 1, a, b, from, to);
      return;
    }
    const StorageOwnership* so = own_.find(a.storage);
    if (so && so->manual) {
      if (auto d = oracle_.smallestShift(a, b, loop, 1, std::max<int64_t>(so->ring, 1)))
        add(kind, i, j, DistanceKind::Exact, *d, a, b, from, to);
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
    for (auto& d : list_.deps) {
      Dependency* same = nullptr;
      if (exactish(d))
        for (auto& k : kept)
          if (exactish(k) && k.kind == d.kind && k.from == d.from && k.to == d.to &&
              k.storage == d.storage && k.var == d.var && k.fromScalar == d.fromScalar &&
              k.toScalar == d.toScalar)
            same = &k;
      if (!same) {
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
    for (auto& d : list_.deps) {
      if (d.kind != kind || d.from != i || d.to != j || d.distanceKind != dk ||
          d.distance != distance)
        continue;
      if (d.storage != a.storage || d.var != a.var || d.fromScalar != a.scalarOperand ||
          d.toScalar != b.scalarOperand)
        continue;
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
    list_.deps.push_back(std::move(d));
  }

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

}  // namespace tilesched::analysis
