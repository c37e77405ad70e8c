// Dependencies of every unit list (SPEC §4.2, §2.2, §5).
//
// Expects: the unit tree of extractUnits and the Ownership of the kernel.
// Guarantees, per list (loop body or kernel root), for every ordered pair of
// units and every pair of their accesses to one storage (aliases included),
// at least one a write:
//  - RAW / WAR / WAW by access kinds (producer first);
//  - distance 0 ("same") when the consumer follows in program order and the
//    boxes overlap in the same iteration;
//  - across iterations, for loop lists:
//      manual ring of size N — the exact smallest d in 1..N at which the
//      producer's box in iteration p meets the consumer's in p + d; none when
//      no d <= N overlaps (and none when a distance-0 dependency exists);
//      storage owned by this loop — "versioned" (the solver's version count);
//      other storages — "carried" (distance 1);
//  - a scalar variable (a let: `off = s * 64`) is a register value read when
//    the scalar unit issues an instruction: only RAW from its definition to
//    a later use in program order, distance 0; never WAR, WAW or carried;
//    a cross-iteration dependency that a distance-0 one of the same pair
//    already implies (forward pairs) is not listed;
//  - latency = finish of the producing task in the producer's last inner
//    iteration − start of the consuming task in the consumer's first, from the
//    lists' timings (clamped at 0);
//  - for a storage with several owners, units holding different owners get
//    one owner-exclusion pair instead of their dependencies on it.
// Lists are processed inner first; each list's timing is then re-estimated and
// a loop unit's latency/II become its body's total time.
//
//   vec_add, loop s:  RAW #0 -> #2 a_ub same lat 172;  WAR #2 -> #0 a_ub versioned lat 48;
//   ring_buffer, loop l (manual ring 2):  RAW #0 -> #1 buf exact 1;  WAR #1 -> #0 buf exact 1
#pragma once

#include "analysis/Overlap.h"
#include "analysis/Ownership.h"
#include "analysis/Tasks.h"

namespace tilesched::analysis {

void computeDependencies(UnitList& root, const Ownership& ownership, OverlapOracle& oracle);

// Recomputes the latencies of `list`'s dependencies and owner exclusions from
// the current timings of its nested loops (e.g. after the scheduler replaced
// an estimate with a solved LoopTiming). Does not change the dependency set.
void recomputeDependencyLatencies(UnitList& list);

// For a dependency `outer` that `list` carries across its iterations through
// a storage owned by a loop nested in both endpoints (a cross-level
// dependence): the owner's own cross-iteration dependency between the same
// two accesses, of the same kind, or null. When it exists, the owner's
// rings, clocked continuously across `list`'s iterations, order `outer`
// too; when it does not (the owner's guards rule the pair out within one
// run of it: `if j == 0` load, `else` fill), only `list` orders it.
const Dependency* innerCarrier(const UnitList& list, const Dependency& outer,
                               const StorageOwnership& own);

// Producer finish − consumer start for tasks reached by `fromPath` / `toPath`
// (unit indices from `list` down), at least 0.
int64_t dependencyLatency(const UnitList& list, const std::vector<int>& fromPath,
                          const std::vector<int>& toPath);

}  // namespace tilesched::analysis
