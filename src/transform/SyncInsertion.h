// Synchronisation (SPEC §6.3, §3.3): set_flag / wait_flag between pipes and
// pipe_barrier on one MTE/FIX pipe, from the analyses' dependencies.
//
// Expects: the materialised kernel, its analyses (units of every list point at
// the input kernel's statements, found again through plan.rebuiltFrom), the
// schedule (stages) and the plan of VersionModes.
// Guarantees, per unit list (kernel root, every loop body):
//  - `if` statements are predicated: the condition goes to a fresh bool
//    (`cond_3 = s > 0`) and every statement under it becomes its own
//    `if cond_3:` slot, so every sync sits outside any condition and is
//    balanced on every path; counter-mode epochs advance their counter by
//    one after every iteration in which a guarded access ran;
//  - a dependency between two pipes becomes a flag: set after the
//    producer's slot, wait before the consumer's slot; one MTE/FIX pipe gets
//    pipe_barrier; S, V and M need nothing (in-order); an L1 gemm's L1
//    operands are synchronised on MTE1, its accumulator on M; a scalar
//    operand read (a load in a loop bound, region start or fill value,
//    Access::scalarOperand) on S;
//  - a dependency d iterations apart (d = versions N for automatic
//    storages, 1 for carried data, the exact distance for manual rings) is
//    a ring of M >= d ids `base + clock % M`, pre-set before the loop and
//    drained after it (balanced for every trip count); N-version rings use
//    the storage's clock (the version index's), the others the loop's;
//  - dependencies already implied (in-order pipes, barriers, chains of kept
//    flags across iterations) are dropped, tightest candidates first;
//  - every flag is legal: a set never finds its id still set. Rings grow
//    (M > d) until the wait is ordered before the id's next set, else a
//    credit flag runs back; when nothing fits, or a hard event would need
//    more than 8 ids, the dependency becomes pipe_barrier("ALL") with a
//    warning;
//  - rings live for the whole kernel (pre-set at its start, drained at its
//    end) so they stay balanced when a loop runs several times; their clock
//    continues across executions (the flattened iteration, or a per-loop
//    counter); ids are never shared between lists;
//  - stages (SPEC §6.4): a loop with enable_offset whose schedule has stages
//    0..S runs S more iterations; a stage-t unit sees `i - t` and is guarded
//    to the original range; dependency distances count staged iterations;
//    bodies with conditions are kept flat (with a warning).
//
//   for s in T.Pipelined(4):                   T.set_flag("V", "MTE2", 0) ...
//       T.copy(A[...], a_ub)                   for s in T.Pipelined(4):
//       for i in T.Parallel(64):                   T.wait_flag("V", "MTE2", s % 2)
//           c[i] = a_ub[i]                         T.copy(A[...], a_ub)
//                                                  T.set_flag("MTE2", "V", s % 2)
//                                                  T.wait_flag("MTE2", "V", s % 2)
//                                                  for i in T.Parallel(64): ...
//                                                  T.set_flag("V", "MTE2", s % 2)
//                                              T.wait_flag("V", "MTE2", 0) ...
#pragma once

#include "analysis/TaskGraph.h"
#include "ir/IR.h"
#include "schedule/Schedule.h"
#include "support/Diagnostics.h"
#include "target/Target.h"
#include "transform/LoweringTypes.h"

namespace tilesched::transform {

// Returns the kernel with synchronisation; `stats` counts what was emitted.
ir::Kernel insertSynchronization(const ir::Kernel& kernel, const analysis::KernelAnalysis& analysis,
                                 const schedule::KernelSchedule& schedule, LoweringPlan& plan,
                                 const Target& target, DiagnosticEngine& diags, SyncStats& stats);

}  // namespace tilesched::transform
