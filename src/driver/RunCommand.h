// `tilesched run` (SPEC §7.1, §7.2): compile, lower with the chosen schedule,
// run the sequential reference and the cycle simulation, compare, and print
// the human summary, the JSON report's `simulation` object, the trace and
// the timeline.
//
// Exit status: 0 when every kernel's outputs match bit for bit with no race,
// flag error, capacity error or run-time error; 3 otherwise; 1 on compile
// errors; 2 on usage errors (bad option values, unavailable schedules).
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "pass/PassManager.h"

namespace CLI {
class App;
}

namespace tilesched::driver {

struct RunCommandOptions {
  std::string file;
  std::vector<std::string> defines;
  std::string func;
  std::string target;
  std::string schedule = "auto";
  std::string scheduleFile;  // --schedule-file: the schedule to lower, read instead of solved
  unsigned solverTimeoutMs = 2000;  // --solver-timeout-ms, per Z3 check
  unsigned long long seed = 0;
  long long cores = 0;
  std::vector<std::string> inputs;  // NAME=file.npy or NAME=number
  std::string outputDir;
  std::string tracePath;
  std::string timelinePath;
  bool timelineAllBlocks = false;  // --timeline-all-blocks: identical blocks drawn one by one
  std::string reportPath;
  std::string emit;              // "lowered": print the lowered kernel
  pass::Instrumentation passes;  // --print-after, --time-passes, --stats, ...
  bool compare = false;          // --compare (= --schedule all): every mode side by side
};

// Registers the `run` subcommand and its options on `app`.
CLI::App* addRunCommand(CLI::App& app, RunCommandOptions& options);
int runRunCommand(const RunCommandOptions& options, std::ostream& out, std::ostream& err);

}  // namespace tilesched::driver
