// Version modes (SPEC §6.1): for every storage with N > 1 versions, the clock
// its version index and its flag rings use.
//
// Expects: a verified kernel, its analyses (owners, guarded epochs) and a
// schedule (versions per storage).
// Guarantees: one StorageLowering per storage in Kernel::storages order;
// versions > 1 only for eligible automatic storages (manual storages keep
// their ring size and no mode); the mode is
//  - "iteration": clock = the flattened iteration number of the owner and its
//    enclosing loops, ((i0 - m0) * T1 + (i1 - m1)) * T2 + ...; needs exactly
//    one owner (error otherwise); a guarded epoch or loop bounds that depend
//    on enclosing loop variables warn "consider counter mode"; bounds that
//    read run-time state (memory, T.alloc_var, scalar variables) fall back to
//    counter mode with a warning, since the clock would re-read them;
//  - "counter": clock = a fresh 32-bit counter (zero at kernel start,
//    advanced after every active epoch by SyncInsertion), shared by owners;
//  - "auto": iteration when the epoch is unconditional, affine (bounds built
//    from constants, parameters and enclosing loop-independent values) and
//    has one owner, else counter.
// Errors go to `diags`; the plan is still returned (iteration errors fall
// back to counter so later passes stay well defined).
//
//   for s in T.Pipelined(4, num_stages=2):    a_ub: 2 versions, iteration,
//       T.copy(A[s * 64:...], a_ub)                 clock s
//   for o in T.serial(3):                      b_ub: 2 versions, iteration,
//       for s in T.Pipelined(4):                    clock o * 4 + s
#pragma once

#include <map>
#include <vector>

#include "analysis/TaskGraph.h"
#include "ir/IR.h"
#include "schedule/Schedule.h"
#include "support/Diagnostics.h"
#include "transform/LoweringTypes.h"

namespace tilesched::transform {

LoweringPlan chooseVersionModes(const ir::Kernel& kernel, const analysis::KernelAnalysis& analysis,
                                const schedule::KernelSchedule& schedule, DiagnosticEngine& diags);

// Every loop's chain of enclosing loops (outermost first, itself last).
std::map<const ir::ForStmt*, std::vector<const ir::ForStmt*>> loopChains(const ir::Stmt& body);
// The flattened iteration number of a loop chain, which grows by one per
// iteration of the innermost loop across the whole kernel; null when some
// loop's bounds depend on an enclosing loop's variable (non-affine).
ir::Expr continuousLoopClock(const std::vector<const ir::ForStmt*>& chain);

}  // namespace tilesched::transform
