// Internal: what Simulator.cpp (block simulation, launch) uses from
// LaunchResult.cpp (what a launch reports). Not part of the simulator's
// interface.
#pragma once

#include <cstdint>
#include <string>

#include "sim/Simulator.h"

namespace tilesched::sim::detail {

// "C[0, 4]": the element of global storage `storage` holding byte `byte`,
// through the first parameter over that storage.
std::string elementName(const ir::Kernel& kernel, const Memory& memory, Machine& machine,
                        int storage, int64_t byte);

// Issues merged and deduplicated, waves and kernel totals.
void finish(SimResult& result, const ir::Kernel& kernel, const SimOptions& options);

}  // namespace tilesched::sim::detail
