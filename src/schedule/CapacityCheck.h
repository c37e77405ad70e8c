// The capacity pre-check (SPEC §5): before any solve, every capacity-checked
// scope must hold one version of each of its storages, fixed counts as
// annotated and manual rings at full size.
//
// Expects: the kernel's ownership analysis and the target.
// Guarantees: returns false after one error per overfull scope, located at
// the first loop that owns an automatic storage of that scope, else at the
// allocation that crosses the capacity; the message names the scope, its
// capacity and the minimum usage and suggests T.annotate_unlimit_memory.
// Scopes named by T.annotate_unlimit_memory are never overfull.
//
//   a = T.alloc_ub((40000,), "float32")    # 160000 bytes
//   b = T.alloc_ub((40000,), "float32")    # 160000 bytes
//   for s in T.Pipelined(4, num_stages=2):  <- error: scope 'shared' needs at
//       ...                                    least 320000 bytes ... 253952
#pragma once

#include "analysis/Ownership.h"
#include "ir/IR.h"
#include "support/Diagnostics.h"
#include "target/Target.h"

namespace tilesched::schedule {

bool checkMinimumCapacity(const analysis::Ownership& ownership, const ir::Kernel& kernel,
                          const Target& target, DiagnosticEngine& diags);

}  // namespace tilesched::schedule
