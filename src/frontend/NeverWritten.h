// Buffers that are read but never written.
//
// What it does: finds each on-chip storage (through any of its buffers and
// views) that some statement reads and no statement of the kernel writes, and
// warns at its first read in program order. Its elements hold no value, so
// every use of what is read is poison at run time.
// Assumes: an elaborated kernel; global tensors are inputs, always written.
// Guarantees: one warning per such storage; none for a storage with any write
// (whether the write covers the read is the simulator's to check).
#pragma once

#include "ir/IR.h"
#include "support/Diagnostics.h"

namespace tilesched::frontend {

void warnNeverWrittenReads(const ir::Kernel& kernel, DiagnosticEngine& diags);

}  // namespace tilesched::frontend
