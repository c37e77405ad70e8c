// Step 5 of the synchronisation pass (SyncInsertionImpl.h): event ids per
// hard event. Rings (d >= 1) take ids kernel-wide from 0 (per epoch under
// id pressure), the per-iteration flags (d = 0) ids above every ring; ids
// are never shared between lists. A flag that does not fit falls back to
// pipe_barrier("ALL"). The dry run only counts what each list needs.
#include "transform/SyncInsertionImpl.h"

#include <fmt/format.h>

namespace tilesched::transform::sync_detail {

using namespace ir;
using analysis::UnitList;

void Lowerer::allocateIds(ListState& ls, std::vector<Edge>& kept) {
  // 5. Allocate ids per hard event: rings (d >= 1) kernel-wide from 0, the
  // per-iteration flags (d = 0) above every ring.
  for (Edge& e : kept) {
    if (e.kind != Edge::Flag) continue;
    auto key = std::make_pair(e.src, e.dst);
    bool isRing = e.d > 0;
    if (dryRun) {
      (isRing ? ringTotalByEpoch : flagTotalByEpoch)[epochMode ? epoch : -1][key] += e.ring;
      continue;
    }
    // Ids are never shared between lists: a flag's last wait in one list is
    // not ordered before another list's first set of the same id.
    int64_t base = isRing ? ringCursor[key]
                   : epochMode
                       ? flagCursor[key]
                       : std::max(flagCursor[key], ringTotal.count(key) ? ringTotal[key] : 0);
    if (base + e.ring > target_.eventIdsPerHardEvent) {
      fallBack(ls, e,
               fmt::format("hard event {} needs more than its {} event ids here",
                           hardEventName(e.src, e.dst), target_.eventIdsPerHardEvent));
      continue;
    }
    e.base = base;
    (isRing ? ringCursor[key] : flagCursor[key]) = base + e.ring;
    std::string name = hardEventName(e.src, e.dst);
    stats_.eventIds[name] = std::max(stats_.eventIds[name], base + e.ring);
  }
}

}  // namespace tilesched::transform::sync_detail
