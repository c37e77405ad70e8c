// `--schedule serial`: the trivially correct lowering, the baseline of
// `tilesched run --compare`. One version per buffer (shapes untouched)
// and a `T.pipe_barrier("ALL")` after every instruction, so no two
// instructions ever overlap and no flags are needed.
//
// Expects: an elaborated, unscheduled kernel (explicit flags and barriers the
// author wrote are kept as they are).
// Guarantees: the result is race-free under SPEC §3.3 whatever the pipes:
// every tile instruction, scalar store and memory-reading scalar assignment is
// followed by barrier_all; a loop body or branch whose bounds/condition read
// memory starts with one, and the whole loop / `if` is followed by one (so the
// scalar read is ordered on every path, an untaken branch or a zero-trip loop
// included); everything else is shared with the input.
//
//   before                                   after
//   for s in T.Pipelined(4, num_stages=2):   for s in T.Pipelined(4, num_stages=2):
//       T.copy(A[s * 64:s * 64 + 64], a)         T.copy(A[s * 64:s * 64 + 64], a)  # MTE2
//       for i in T.Parallel(64):                 T.pipe_barrier("ALL")
//           c[i] = a[i] + 1.0                    for i in T.Parallel(64):
//       T.copy(c, C[s * 64:s * 64 + 64])             c[i] = a[i] + 1.0
//                                                T.pipe_barrier("ALL")
//                                                T.copy(c, C[s * 64:s * 64 + 64])  # MTE3
//                                                T.pipe_barrier("ALL")
#pragma once

#include "ir/IR.h"

namespace tilesched::transform {

ir::Kernel lowerSerial(const ir::Kernel& kernel);

}  // namespace tilesched::transform
