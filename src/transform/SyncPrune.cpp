// Step 3 of the synchronisation pass (SyncInsertionImpl.h): pruning through
// happens-before. Candidates are tried shortest span first; one is kept
// unless the flags and barriers kept so far already order its producer's
// work before its consumer's (the reach search), so no flag is implied by
// others. Expects candidates of one list; guarantees every dependency is
// ordered by the kept edges.
#include "transform/SyncInsertionImpl.h"

#include <fmt/format.h>

namespace tilesched::transform::sync_detail {

using namespace ir;
using analysis::UnitList;

Reach reach(const std::vector<Edge>& kept, Pipe start, Tok t, bool ordinary, bool inorderStart) {
  Reach r;
  auto relax = [](Tok& slot, Tok v) {
    if (v.k > kMaxIterations) return false;
    if (v < slot) {
      slot = v;
      return true;
    }
    return false;
  };
  auto after = [](Tok from, int64_t p) { return Tok{p > from.pos ? from.k : from.k + 1, p}; };
  r.comp[pipeIndex(start)] = t;
  if (ordinary || inorderStart) r.ord[pipeIndex(start)] = t;
  bool changed = true;
  while (changed) {
    changed = false;
    for (Pipe x : kAllPipes) changed |= relax(r.comp[pipeIndex(x)], r.ord[pipeIndex(x)]);
    for (const Edge& e : kept) {
      switch (e.kind) {
        case Edge::Flag: {
          Tok c = r.comp[pipeIndex(e.src)];
          if (!c.finite() || !e.dKnown) break;
          Tok at = after(c, e.setPos);
          Tok w{at.k + e.d, e.waitPos};
          // A wait on S stalls the scalar unit, so later instructions of every
          // pipe issue after it; the simulator's race detector does not count
          // that as ordering, so neither do we (S orders S only).
          changed |= relax(r.ord[pipeIndex(e.dst)], w);
          break;
        }
        case Edge::Barrier: {
          Tok c = r.comp[pipeIndex(e.src)];
          if (c.finite()) changed |= relax(r.ord[pipeIndex(e.src)], after(c, e.waitPos));
          break;
        }
        case Edge::BarrierAll: {
          Tok best;
          for (Pipe x : kAllPipes)
            if (r.comp[pipeIndex(x)].finite()) {
              Tok a = after(r.comp[pipeIndex(x)], e.waitPos);
              if (a < best) best = a;
            }
          if (best.finite())
            for (Pipe x : kAllPipes) changed |= relax(r.ord[pipeIndex(x)], best);
          break;
        }
      }
    }
  }
  return r;
}

std::vector<Edge> Lowerer::prune(const std::vector<Cand>& cands) const {
  std::vector<Edge> kept;
  for (auto& c : cands) {
    int64_t a = c.producerSlot, b = c.consumerSlot;
    Reach r = reach(kept, c.edge.src, Tok{0, pos(a, kWork)}, false, inOrder(target_, c.edge.src));
    Tok need{c.edge.d, pos(b, kWork)};
    if (r.ord[pipeIndex(c.edge.dst)] < need) continue;
    // Duplicates of a kept flag (same endpoints and pipes, larger distance) are implied above.
    kept.push_back(c.edge);
  }
  return kept;
}

}  // namespace tilesched::transform::sync_detail
