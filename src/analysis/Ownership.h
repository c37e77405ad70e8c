// Owners and multi-buffer eligibility (SPEC §2.4, §2.1, §2.2, §6.1).
//
// Expects: the unit tree of extractUnits (accesses in program order within
// each task, guards relative to each list).
// Guarantees, per storage (aliases resolved: one entry per allocation):
//  - candidates are on-chip storages (UB, L1, L0A, L0B, L0C); local scopes and
//    global memory never are;
//  - an explicit `multi_buffer_eligible` claim is trusted: the claiming loops
//    are the owners and nothing is inferred; claims on nested loops for one
//    storage are an error naming the buffer and both loops;
//  - otherwise the owners are the deepest loops of any kind (T.serial, range,
//    T.unroll, T.Pipelined, T.Persistent) whose every iteration writes the
//    storage before reading it ("write-first") and that together cover every
//    access; sibling loops may each own it; owners never nest. A loop with a
//    constant trip count of 1 is transparent: its body belongs to its parent;
//  - write-first is optimistic: a write to any part of the storage initialises
//    it; a read is covered by the earlier writes when its guard implies one of
//    theirs, where writes under complementary guards (`if c` / `else`, `if c`
//    / `if not c`) combine into a write under their common part;
//  - a T.fill / T.clear of the whole storage outside every loop does not block
//    inference; it is recorded in `broadcastFills` (lowering writes it to
//    every version, SPEC §6.2). Any other access outside the owners does;
//  - manual (T.annotate_manual_multi_buffer) and opted-out (`{buf: 1}`)
//    storages are never eligible; claims on them are dropped with a warning
//    (once per storage, naming the buffer); a fixed count N >= 2 on a storage
//    that ends up ineligible warns too;
//  - versionBound: the owner's num_stages, else the nearest enclosing loop's,
//    else 1; the largest over sibling owners (see hasNumStages).
//
//   for s in T.serial(4):                      a_ub: eligible, owners [s]
//       T.copy(A[s * 64:s * 64 + 64], a_ub)    acc:  not eligible ("read before
//       for i in T.Parallel(64):                      it is written in an iteration
//           acc[i] = acc[i] + a_ub[i]                 of loop 's' (line 1)")
#pragma once

#include <string>
#include <vector>

#include "analysis/PartialWrites.h"
#include "analysis/Tasks.h"
#include "ir/IR.h"
#include "support/Diagnostics.h"

namespace tilesched::analysis {

struct StorageOwnership {
  ir::Storage storage;
  ir::Buffer buffer;       // the allocating buffer (names in messages and reports)
  bool candidate = false;  // on-chip, capacity-checked scope
  bool manual = false;
  int64_t ring = 0;            // manual ring size
  bool optOut = false;         // {buf: 1}
  bool explicitClaim = false;  // owners come from multi_buffer_eligible
  bool eligible = false;
  std::vector<ir::Stmt> owners;  // ForStmts, in program order
  // Some owner iteration may not access the storage at all (SPEC §6.1: not
  // every epoch is active): each of its accesses in the owner's body is
  // conditional (a guarded T.Persistent tile loop's are), or the owner (or a
  // loop around it) runs under a condition. An unconditional access anywhere
  // in the body (also through one-trip and constant-trip nested loops) makes
  // every epoch active.
  bool guardedEpoch = false;
  // The bounds of an owner or of a loop around it depend on an enclosing
  // loop variable, a scalar variable or a load: the flattened iteration
  // number is not affine (SPEC §6.1 "non-affine loop nest").
  bool nonAffineNest = false;
  // SPEC §2.4 version bound: the owner's num_stages, or the nearest enclosing
  // loop's that has one, else 1; the largest over sibling owners. 1 when not
  // eligible. (Fixed counts of §2.1 may exceed it.)
  int64_t versionBound = 1;
  // The loop whose num_stages gives versionBound (an owner or a loop around
  // one); null when no such loop has a num_stages.
  const ir::ForStmt* versionBoundLoop = nullptr;
  // T.fill / T.clear statements (FillStmt) of this storage outside all its
  // owners, in program order; lowering writes them to every version (SPEC
  // §6.2). Inferred owners allow only whole-storage fills outside every
  // loop; explicit claims keep whatever fills lie outside the claiming loops.
  // Empty when not eligible.
  std::vector<ir::Stmt> broadcastFills;
  std::string reason;  // why it is not eligible ("" when eligible)
  // An eligible storage's first write that the analysis sees may not cover
  // it in some iteration (analysis/PartialWrites.h); warned about once it
  // gets several versions.
  std::optional<PartialWrite> partialWrite;

  // SPEC §6.1 "auto": counter mode unless the epoch is unconditional, affine
  // and has one owner.
  bool autoPicksCounter() const { return guardedEpoch || nonAffineNest || owners.size() > 1; }
};

struct Ownership {
  std::vector<StorageOwnership> storages;  // in Kernel::storages order

  const StorageOwnership* find(const ir::Storage& s) const;
  bool isOwner(const ir::ForStmt* loop, const ir::Storage& s) const;
  // Storages owned by `loop`.
  std::vector<ir::Storage> ownedBy(const ir::ForStmt* loop) const;
};

// A loop with a constant trip count of 1: never an owner, its body belongs to
// its parent.
bool isTransparentLoop(const ir::ForStmt& loop);

// Does `loop` declare a num_stages (SPEC §2.4 "has one")? T.Pipelined always
// does (default 1, SPEC §1.4; `annotations={"num_stages": k}` on T.serial
// makes a T.Pipelined loop), T.Persistent when num_stages > 0; T.serial,
// range and T.unroll never do (ForStmt::numStages is only a placeholder there).
bool hasNumStages(const ir::ForStmt& loop);

Ownership analyzeOwnership(const ir::Kernel& kernel, const UnitList& root, DiagnosticEngine& diags);

// The loop unit on `path` (unit indices from `list` down, as a dependency's
// fromPath / toPath) that is one of `own`'s owners, or null: a dependency of
// `list` through a storage owned by a loop nested in it (a cross-level
// dependence). `depth`: its position on the path.
const Unit* ownerUnitOnPath(const UnitList& list, const std::vector<int>& path,
                            const StorageOwnership& own, size_t* depth = nullptr);

}  // namespace tilesched::analysis
