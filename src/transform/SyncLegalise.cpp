// Step 4 of the synchronisation pass (SyncInsertionImpl.h): legalisation of
// a loop's flags (the root runs once: nothing to legalise). Every ring gets
// enough ids that a wait is ordered before the next set of its id, within
// the target's ids per hard event and, for a storage-clocked flag, exactly
// its version count; else a credit flag back from the wait to the set; else
// pipe_barrier("ALL") with a warning. Then rings of more than one id get
// their clock: the storage's, the flattened iteration, or a ring counter.
#include "transform/SyncInsertionImpl.h"

#include <fmt/format.h>

#include "transform/VersionModes.h"

namespace tilesched::transform::sync_detail {

using namespace ir;
using analysis::UnitList;

void Lowerer::fallBack(ListState& ls, Edge& e, const std::string& why) {
  e.kind = Edge::BarrierAll;
  e.waitPos = pos(e.waitPos / kStride, kBarrier);
  if (!ls.warned)
    diags_.warning(e.loc, fmt::format("{}; pipe_barrier(\"ALL\") synchronises this dependency "
                                      "instead (slower); fewer versions avoid it",
                                      why));
  ls.warned = true;
}

void Lowerer::legalise(ListState& ls, std::vector<Edge>& kept) {
  const ForStmt* loop = ls.loop;
  bool isLoop = ls.isLoop;
  const Expr& loopClock = ls.loopClock;
  bool staged = ls.staged;
  bool singleTrip = ls.singleTrip;
  Var& ringCounter = ls.ringCounter;
  // A one-trip loop outside every other loop runs its body once per kernel,
  // like the root: no flag of it is set twice, nothing to legalise.
  bool runsOnce = singleTrip && !staged && chains.count(loop) && chains.at(loop).size() == 1;
  if (isLoop && !runsOnce) {
    size_t n = kept.size();
    for (size_t i = 0; i < n; ++i) {
      Edge& e = kept[i];
      if (e.kind != Edge::Flag) continue;
      Reach r = reach(kept, e.dst, Tok{0, e.waitPos}, true, true);
      Tok t = std::min(r.ord[pipeIndex(e.src)], r.comp[pipeIndex(e.src)]);
      int64_t need = std::numeric_limits<int64_t>::max();
      if (t.finite()) need = e.d + t.k + (t.pos < e.setPos ? 0 : 1);
      int64_t ring = std::max<int64_t>({need, e.d, 1});
      bool fits =
          t.finite() && ring <= target_.eventIdsPerHardEvent && (!e.storageClock || ring == e.d);
      if (fits) {
        e.ring = ring;
        if (ring > e.d && e.storageClock) TS_INTERNAL(false, "storage-clocked ring grew");
        continue;
      }
      // A credit flag back from after the wait to before the set.
      Edge c;
      c.credit = true;
      c.src = e.dst;
      c.dst = e.src;
      c.loc = e.loc;
      c.clock = loopClock;
      c.setPos = pos(e.waitPos / kStride, kCreditSet);
      c.waitPos = pos(e.setPos / kStride, kCreditWait);
      if (e.d == 0) {
        e.ring = 1;
        c.d = 1;
        c.ring = 1;
      } else if (e.waitPos / kStride < e.setPos / kStride) {
        e.ring = e.d;
        c.d = 0;
        c.ring = e.d;
      } else {
        fallBack(ls, e,
                 fmt::format("no legal flag ring orders this dependency ({} -> {})",
                             pipeName(e.src), pipeName(e.dst)));
        continue;
      }
      kept.push_back(c);
    }
  }

  // Rings of more than one id that are not clocked by a storage use a clock
  // that continues from one execution of the loop to the next (their state
  // outlives the loop): a per-loop counter advanced after every iteration.
  // The flattened iteration number serves when the nest is affine and the
  // clock's final value is not needed.
  Expr continuous =
      isLoop && !staged ? continuousLoopClock(chains.at(plan_.origin(loop))) : nullptr;
  for (Edge& e : kept) {
    if (e.kind != Edge::Flag || e.ring <= 1 || e.storageClock) continue;
    // Partial rings (d < ring) drain by the clock's final value: a counter.
    bool partial = e.d > 0 && e.ring > e.d;
    if (continuous && !partial) {
      e.clock = continuous;
      continue;
    }
    if (!ringCounter) ringCounter = plan_.freshVar(loop->var->name + "_ring", DType::Int32);
    e.clock = varRef(ringCounter);
  }
  if (ringCounter) loopCounters.push_back(ringCounter);
}

}  // namespace tilesched::transform::sync_detail
