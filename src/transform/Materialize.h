// Materialisation of buffer versions (SPEC §6.2).
//
// Expects: the input kernel (flag statements are left alone) and the plan of
// VersionModes; runs before SyncInsertion, which finds its units again
// through `plan.rebuiltFrom` (every rebuilt statement -> its original).
// Guarantees: every buffer over a storage with N > 1 versions (aliases
// included) gains a leading dimension N and its storage N times the bytes of
// one version rounded up to the scope's alignment (each version starts
// aligned: BufferNode::versionStrideBytes);
// every access inside an owner loop gets the version index
// `clock % N` prepended (clock from the plan); accesses outside every owner
// (only whole-buffer fills are allowed there) cover all N versions; manual
// storages and storages with one version are untouched.
//
//   a_ub = T.alloc_ub((64,), "float32")      a_ub = T.alloc_ub((2, 64), "float32")
//   for s in T.Pipelined(4, num_stages=2):   for s in T.Pipelined(4, num_stages=2):
//       T.copy(A[s * 64:...], a_ub)              T.copy(A[s * 64:...], a_ub[s % 2, 0:64])
//       ... a_ub[i] ...                          ... a_ub[s % 2, i] ...
#pragma once

#include "ir/IR.h"
#include "target/Target.h"
#include "transform/LoweringTypes.h"

namespace tilesched::transform {

ir::Kernel materializeVersions(const ir::Kernel& kernel, LoweringPlan& plan, const Target& target);

}  // namespace tilesched::transform
