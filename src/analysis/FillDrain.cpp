// Fill and drain of each pipe (see FillDrain.h).
#include "analysis/FillDrain.h"

#include <algorithm>
#include <limits>
#include <map>
#include <vector>

namespace tilesched::analysis {

namespace {

// One leaf task of the flattened unit tree, in program (pre-order) order.
struct Leaf {
  const Unit* unit = nullptr;
  bool mayBeAbsent = false;  // under a guard, or in a loop that may not run
  int64_t head = 0;          // kernel start → earliest start
  int64_t rest = 0;          // start → earliest kernel end
  std::vector<int> preds, succs;
};

struct Flattener {
  std::vector<Leaf> leaves;
  std::map<const Unit*, int> index;

  void collect(const UnitList& list, bool absent) {
    for (const Unit& u : list.units) {
      bool a = absent || !u.guard.empty();
      if (u.isLoop()) {
        const LoopTiming& t = u.body->timing;
        collect(*u.body, a || !t.tripsKnown || t.trips <= 0);
      } else {
        index[&u] = static_cast<int>(leaves.size());
        leaves.push_back({&u, a, 0, 0, {}, {}});
      }
    }
  }

  // The leaf a dependency path names, starting in `list`; -1 if none.
  int resolve(const UnitList& list, const std::vector<int>& path) const {
    const UnitList* l = &list;
    for (size_t i = 0; i < path.size(); ++i) {
      if (path[i] < 0 || static_cast<size_t>(path[i]) >= l->units.size()) return -1;
      const Unit& u = l->units[static_cast<size_t>(path[i])];
      if (i + 1 == path.size()) {
        auto it = index.find(&u);
        return it == index.end() ? -1 : it->second;
      }
      if (!u.isLoop()) return -1;
      l = u.body.get();
    }
    return -1;
  }

  void edges(const UnitList& list) {
    for (const Dependency& d : list.deps) {
      if (d.distanceKind != DistanceKind::Same) continue;
      int from = resolve(list, d.fromPath.empty() ? std::vector<int>{d.from} : d.fromPath);
      int to = resolve(list, d.toPath.empty() ? std::vector<int>{d.to} : d.toPath);
      // Program order: a same-iteration dependency always points forward.
      if (from < 0 || to < 0 || from >= to) continue;
      if (leaves[from].mayBeAbsent || leaves[to].mayBeAbsent) continue;
      leaves[from].succs.push_back(to);
      leaves[to].preds.push_back(from);
    }
    for (const Unit& u : list.units)
      if (u.isLoop()) edges(*u.body);
  }
};

// The least time from u's start to w's start that the lowered kernel
// guarantees for a dependency u → w: u's completion (a flag, or a barrier on a
// pipe that may overlap its instructions), except on one pipe that completes
// in order, where w may start as soon as u has freed the pipe (its II). Two
// L1 gemms (two pipes each) sharing a pipe: -1, the edge is not counted
// (their parts interleave; nothing simple is guaranteed).
int64_t minStep(const Unit& u, const Unit& w, const Target& target) {
  const cost::InstructionCost& a = u.cost;
  const cost::InstructionCost& b = w.cost;
  if (!(u.pipeMask & w.pipeMask)) return u.latency;
  if (a.secondPipe || b.secondPipe) return -1;
  return target.completesInOrder(a.pipe) ? a.ii : u.latency;
}

}  // namespace

FillDrain computeFillDrain(const KernelAnalysis& analysis, const Target& target) {
  Flattener f;
  f.collect(analysis.root, false);
  f.edges(analysis.root);
  auto& leaves = f.leaves;
  for (Leaf& l : leaves)
    for (int p : l.preds)
      if (int64_t step = minStep(*leaves[p].unit, *l.unit, target); step >= 0)
        l.head = std::max(l.head, leaves[p].head + step);
  for (size_t i = leaves.size(); i-- > 0;) {
    Leaf& l = leaves[i];
    l.rest = l.unit->latency;
    for (int s : l.succs)
      if (int64_t step = minStep(*l.unit, *leaves[s].unit, target); step >= 0)
        l.rest = std::max(l.rest, step + leaves[s].rest);
  }

  FillDrain fd;
  constexpr int64_t kNone = std::numeric_limits<int64_t>::max();
  fd.fill.fill(kNone);
  fd.drain.fill(kNone);
  auto part = [&](Pipe p, int64_t fill, int64_t drain) {
    size_t pi = pipeIndex(p);
    fd.hasTasks[pi] = true;
    fd.fill[pi] = std::min(fd.fill[pi], fill);
    fd.drain[pi] = std::min(fd.drain[pi], std::max<int64_t>(0, drain));
  };
  for (const Leaf& l : leaves) {
    const cost::InstructionCost& c = l.unit->cost;
    if (c.secondPipe) {
      // MTE1 part first; the M part starts when it has completed, and the
      // rest is counted from the M part's start (a later M start only adds).
      part(*c.secondPipe, l.head, l.rest - c.secondIi);
      part(c.pipe, l.head + c.secondLatency, l.rest - c.secondLatency - c.ii);
    } else {
      part(c.pipe, l.head, l.rest - c.ii);
    }
  }
  for (size_t p = 0; p < kNumPipes; ++p)
    if (!fd.hasTasks[p]) fd.fill[p] = fd.drain[p] = 0;
  // The scalar unit is busy issuing from the first cycle to the last.
  fd.fill[pipeIndex(Pipe::S)] = fd.drain[pipeIndex(Pipe::S)] = 0;
  return fd;
}

int64_t boundWithFillDrain(const FillDrain& fd, const std::array<int64_t, kNumPipes>& busy) {
  int64_t bound = 0;
  for (size_t p = 0; p < kNumPipes; ++p)
    if (busy[p] > 0) bound = std::max(bound, busy[p] + fd.fill[p] + fd.drain[p]);
  return bound;
}

}  // namespace tilesched::analysis
