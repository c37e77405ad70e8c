// The sequential reference of a manual-form mixed kernel (SPEC §9.1: `with
// T.Cube()` / `with T.Vector() as sid`), whose cores hand tiles to each other
// through cross-core flags, so that no single program order is its meaning.
//
// Each core of the group (the AIC and the AIVs T.Vector runs on) executes
// the whole body in program order with the reference semantics of
// Machine::exec; its own intra-core flags do nothing, as in every reference
// run. Cross-core flags are counters (sim/CrossCoreFlags.h): one core runs at
// a time, until it finishes or waits on a counter that is 0; then the next
// core (in the order AIC, AIV 0, AIV 1, round robin) that can go on runs. A
// kernel whose flags order every cross-core hand-off gives the same values
// under any such interleaving, so this is its meaning; the cycle simulator's
// race check is what proves the flags do order them.
//
// Assumes: one Machine per core, each bound (parameters, block, core view)
// by the caller, all over one Memory.
// Guarantees: deterministic; a state in which every unfinished core waits
// is an ExecError naming each core and the flag it waits on; so are flag
// ids outside the pool. A set on a counter that holds 15 pending sets (the
// hardware's most) waits for a wait to take one, like a wait on an empty
// counter: which core runs ahead is this run's choice, not the kernel's,
// and the cycle simulator reports a counter the hardware would overfill.
#pragma once

#include <vector>

#include "sim/Machine.h"

namespace tilesched::sim {

// Binds core `core` of the manual-form group in `machine`: the core and sid
// variables and the core's view of the per-core storages.
void bindGroupCore(const ir::Kernel& kernel, Machine& machine, int core);

// The cores that run a manual-form kernel: the AIC and T.Vector's AIVs.
int groupCores(const ir::Kernel& kernel);

// Runs the current block on `cores` (cores[c] runs as core c). Throws the
// first ExecError of any core, or the deadlock.
void runGroupReference(const ir::Kernel& kernel, const std::vector<Machine*>& cores);

}  // namespace tilesched::sim
