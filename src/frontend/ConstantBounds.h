// Compile-time bounds check of element accesses whose indices are known.
//
// What it does: for every `buf[i, ...]` load or store of a buffer with a
// constant shape, where an index is a linear combination of loop variables
// with constant bounds (serial, pipelined, T.Parallel and the block index),
// names assigned once from such combinations, and constants, computes the
// exact range the index sweeps and reports an error when that range leaves
// the dimension, with the values of the variables where it does.
// Assumes: a kernel that passed elaboration (every loop variable bound by its
// loop). Accesses under an `if`, in a branch of a select or after the first
// operand of `and`/`or` are skipped: the guard may keep them in bounds.
// Guarantees: no false error: a reported index is reached by an iteration the
// kernel runs (each variable appears once, so the range's ends are reached).
#pragma once

#include "ir/IR.h"
#include "support/Diagnostics.h"

namespace tilesched::frontend {

// Reports one error per statement with an out-of-bounds index.
void checkConstantIndices(const ir::Kernel& kernel, DiagnosticEngine& diags);

}  // namespace tilesched::frontend
