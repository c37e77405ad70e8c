// Manual rings whose size no index reflects.
//
// What it does: for each T.annotate_manual_multi_buffer entry of N > 1 slots,
// looks at every index of every access of its storage (element accesses and
// region starts, names assigned once followed to their values) and warns at
// the entry when none is taken modulo N (or is the variable of a loop of N
// trips, which names each slot directly): the slot an iteration uses is then
// not chosen by the ring, so the N slots are not a ring (a typo in N, or a
// ring index written for another size).
// Assumes: an elaborated kernel with its manual annotations.
// Guarantees: no warning when any index reads run-time state (a load, an
// alloc_var, a name assigned more than once): the slot may come from there.
#pragma once

#include "ir/IR.h"
#include "support/Diagnostics.h"

namespace tilesched::frontend {

void warnUnreflectedManualRings(const ir::Kernel& kernel, DiagnosticEngine& diags);

}  // namespace tilesched::frontend
