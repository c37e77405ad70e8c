// Owners and multi-buffer eligibility (SPEC §2.4, §2.1, §2.2).
//
// Expects: the unit tree of extractUnits (accesses in program order within
// each task, guards relative to each list).
// Guarantees, per storage (aliases resolved: one entry per allocation):
//  - candidates are on-chip storages (UB, L1, L0A, L0B, L0C); local scopes and
//    global memory never are;
//  - an explicit `multi_buffer_eligible` claim is trusted: the claiming loops
//    are the owners and nothing is inferred (nested claims keep the outermost,
//    with a warning);
//  - otherwise the owners are the deepest pipelined loops (T.Pipelined,
//    T.Persistent with num_stages > 0) whose every iteration writes the
//    storage before reading it ("write-first") and that together cover every
//    access; sibling loops may each own it; owners never nest. Serial loops
//    are transparent: their bodies count as part of the enclosing iteration;
//  - write-first is optimistic: a write to any part of the storage initialises
//    it; a read is covered by an earlier write whose guard it implies (same
//    conditions, syntactically); `{buf: 1}` exists for what this misses;
//  - manual (T.annotate_manual_multi_buffer) and opted-out (`{buf: 1}`)
//    storages are never eligible; claims on them are dropped with a warning
//    (once per storage, naming the buffer); a fixed count N >= 2 on a storage
//    that ends up ineligible warns too.
//
//   for s in T.Pipelined(4, num_stages=2):     a_ub: eligible, owners [s]
//       T.copy(A[s * 64:s * 64 + 64], a_ub)    acc:  not eligible ("read before
//       for i in T.Parallel(64):                      it is written in an iteration
//           acc[i] = acc[i] + a_ub[i]                 of loop 's' (line 1)")
#pragma once

#include <string>
#include <vector>

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
  // Some owner iteration accesses the storage only under a condition (or the
  // owner is a guarded persistent loop): "auto" mode picks counter indices.
  bool guardedEpoch = false;
  // SPEC §2.4 version bound: the owner's num_stages, or the nearest enclosing
  // loop's that has one, else 1; the largest over sibling owners. 1 when not
  // eligible. (Fixed counts of §2.1 may exceed it.)
  int64_t versionBound = 1;
  std::string reason;  // why it is not eligible ("" when eligible)
};

struct Ownership {
  std::vector<StorageOwnership> storages;  // in Kernel::storages order

  const StorageOwnership* find(const ir::Storage& s) const;
  bool isOwner(const ir::ForStmt* loop, const ir::Storage& s) const;
  // Storages owned by `loop`.
  std::vector<ir::Storage> ownedBy(const ir::ForStmt* loop) const;
};

Ownership analyzeOwnership(const ir::Kernel& kernel, const UnitList& root, DiagnosticEngine& diags);

}  // namespace tilesched::analysis
