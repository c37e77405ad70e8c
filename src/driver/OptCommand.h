// `tilesched opt FILE --passes a,b,c`: runs named passes on a kernel file and
// prints the IR they leave (LLVM's `opt`, MLIR's `mlir-opt` are the models):
// the tool the text pass tests in tests/passes/ are written with.
//
//   tilesched opt k.py --passes analyze,schedule,version-modes,materialize-versions
//   tilesched opt k.py --passes analyze,schedule,... --schedule-file k.schedule
//
// `--schedule-file` gives the `schedule` pass a schedule to read instead of
// solving one (the text `compile --emit schedule` prints, edited by hand;
// schedule/ScheduleParser.h); the independent checker must accept it.
// Expects: pass names of the registry (`tilesched --help` lists them), in its
// order; `elaborate` runs first whether named or not; every pass's `needs`
// comes before it in the list; `simulate` is `tilesched run`'s.
// Guarantees: the printed file reads back (`import tilelang.language as T`,
// then each kernel); diagnostics on stderr; exit 0, 1 (compile errors) or 2
// (a usage error naming the pass and what it needs). The pass flags
// (`--print-after`, `--time-passes`, ...) are those of every command.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "pass/PassManager.h"

namespace tilesched::driver {

struct OptOptions {
  std::string file;
  std::vector<std::string> defines;
  std::string func;
  std::string target;
  std::string passes;             // --passes a,b,c
  std::string schedule = "auto";  // the rule of `schedule`: auto, none or double
  std::string scheduleFile;       // --schedule-file: the schedule, read instead of solved
  unsigned solverTimeoutMs = 2000;
  pass::Instrumentation instrumentation;
};

int runOptCommand(const OptOptions& options, std::ostream& out, std::ostream& err);

// The pipeline `--passes` names ("elaborate" first), or a usage message in `error`.
std::vector<std::string_view> parsePassList(const std::string& list, std::string& error);

}  // namespace tilesched::driver
