// Visual output of a simulation: Chrome/Perfetto trace-event JSON (--trace)
// and a self-contained SVG Gantt chart (--timeline).
//
// Trace: one process per block, one thread (track) per pipe, a complete
// ("X") event per instruction with its source file and line, its cycles and
// its loop iteration in `args`, flow arrows from each set_flag to the
// wait_flag that consumed it. The target model has no clock, so timestamps
// are cycles written as microseconds: 1 us on the viewer's axis = 1 cycle,
// which the process names and otherData say (docs/simulator.md "Output").
// Launches of one prim_func are placed one after the other in time.
// Timeline: blocks with identical events are drawn once ("× 4 blocks"); per
// pipe a lane of work bars, each with its short name where it fits, and a
// thin lane under it for set_flag, wait_flag and barriers; dashed lines at
// the start of every loop iteration, with the schedule's II;
// one colour per op kind, a cycle axis and a legend; each bar has a <title>
// tooltip with the instruction and its line.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "sim/Simulator.h"

namespace tilesched::sim {

// The schedule's II of one loop, matched to TraceLoop by name and line.
struct TraceLoopII {
  std::string var;
  uint32_t line = 0;
  int64_t ii = 0;
};

struct TraceInput {
  std::string kernelName;
  const SimResult* result = nullptr;
  // The file compiled: where events without TraceEvent::file are.
  std::string file;
  // Cycle at which this kernel starts: later launches of a prim_func start
  // where the previous one ended, and are drawn there.
  int64_t startCycle = 0;
  // Empty when the run had no modulo schedule (serial, as-written, none, double).
  std::vector<TraceLoopII> loopIIs;
};

struct TimelineOptions {
  // Distinct blocks drawn per launch (identical blocks share one drawing);
  // the rest are counted in the subtitle.
  int maxBlocks = 4;
  // Every block on its own, none merged and none left out.
  bool allBlocks = false;
};

void writeChromeTrace(std::ostream& out, const std::vector<TraceInput>& kernels);
void writeTimelineSvg(std::ostream& out, const std::vector<TraceInput>& kernels,
                      const std::string& title, const TimelineOptions& options = {});

// JSON string escaping (shared by both writers).
std::string jsonEscape(const std::string& s);

}  // namespace tilesched::sim
