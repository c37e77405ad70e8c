// Visual output of a simulation: Chrome/Perfetto trace-event JSON (--trace)
// and a self-contained SVG Gantt chart (--timeline).
//
// Trace: one process per block, one thread (track) per pipe, a complete
// ("X") event per instruction with its source line in `args`, flow arrows
// from each set_flag to the wait_flag that consumed it. Timestamps are
// cycles, written as microseconds (Perfetto shows "1 us" = 1 cycle).
// Launches of one prim_func are placed one after the other in time.
// Timeline: one lane per pipe for up to `maxBlocks` blocks, one colour per
// op kind, a cycle axis with round ticks and a legend; each bar has a
// <title> tooltip with the instruction and its line.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "sim/Simulator.h"

namespace tilesched::sim {

struct TraceInput {
  std::string kernelName;
  const SimResult* result = nullptr;
  // Cycle at which this kernel starts: later launches of a prim_func start
  // where the previous one ended, and are drawn there.
  int64_t startCycle = 0;
};

void writeChromeTrace(std::ostream& out, const std::vector<TraceInput>& kernels);
void writeTimelineSvg(std::ostream& out, const std::vector<TraceInput>& kernels,
                      const std::string& title, int maxBlocks = 4);

// JSON string escaping (shared by both writers).
std::string jsonEscape(const std::string& s);

}  // namespace tilesched::sim
