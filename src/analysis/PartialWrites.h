// Partial writes (SPEC §2.4): the compile-time half of making the optimistic
// write-first rule's misses visible.
//
// Ownership counts any write of a storage as initialising it, so a loop owns
// a buffer that one of its iterations writes only in part; with several
// versions the rest of the buffer then holds another iteration's data than
// in the sequential program (the simulator reports the read as a stale
// version, sim/StaleVersions.h). This analysis finds the writes it can see
// may fall short, before anything runs:
//  - an unguarded copy from global memory whose source region runs past the
//    end of its tensor in some iteration (known shapes, interval bounds of
//    the loop variables): the copy is clipped there and the destination keeps
//    the rest (L1 destinations are zero-filled and pad_value= fills, so
//    neither counts; under a guard the bounds say nothing about the
//    iterations that run the copy);
//  - a write inside a loop of the owner's body whose trip count is only known
//    at run time (`for j in T.serial(n): a_ub[j] = ...`).
// A write of the whole storage earlier in the iteration (a T.fill, a full
// copy) covers what follows, so only writes before the first such one count.
//
// Expects: an eligible storage of analyzeOwnership with its owners.
// Guarantees: the first such write in program order of the first owner that
// has one, with the reason in words; nullopt when the analysis sees none
// (which proves nothing: the run-time check stays the safety net).
//
//   for s in T.Pipelined(3, num_stages=2):          A has 3000 elements
//       T.copy(A[s * 1024:s * 1024 + 1024], a_ub)   <- clipped when s = 2
#pragma once

#include <optional>
#include <string>

#include "ir/IR.h"
#include "support/Diagnostics.h"

namespace tilesched::analysis {

struct StorageOwnership;

struct PartialWrite {
  SourceLoc loc;
  std::string reason;    // "this copy of 'A' (shape (3000,)) runs past the end of ..."
  bool clipped = false;  // a clipped copy (pad_value= is the fix) rather than a run-time trip count
};

std::optional<PartialWrite> findPartialWrite(const ir::Kernel& kernel, const StorageOwnership& o);

// The warning for a storage that gets `versions` > 1 and has a partial write
// (once per storage; nothing otherwise).
void warnPartialWrite(const StorageOwnership& o, int64_t versions, DiagnosticEngine& diags);

}  // namespace tilesched::analysis
