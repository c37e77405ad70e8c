// `tilesched solve PROBLEM.json`: one scheduling problem, given as the
// keyword arguments of TileLang's solver functions or as a file that
// `compile --dump-schedule-problems` wrote (docs/solver-interface.md), solved
// and checked outside any kernel; prints what the upstream function returns,
// with our figures under `tilesched`.
//
//   tilesched solve dumps/vec_add.0.s_line40.json
//   tilesched solve root.json --straight-line --emit text
//
// Expects: a JSON object (ProblemReader.h); `--straight-line` reads it as
// `z3_schedule_python`'s arguments, else a loop unless it says
// `"is_loop": false`.
// Guarantees: stdout holds the result (json: StandaloneSolve.h; text: one
// line per task); a wrong field, a problem without a schedule or an answer
// the checker rejects is `FILE: error: ...` on stderr with exit 1; an
// unreadable file exit 2. Never a silent sequential fallback.
#pragma once

#include <iosfwd>
#include <string>

namespace tilesched::driver {

struct SolveOptions {
  std::string file;
  bool straightLine = false;
  unsigned timeoutMs = 2000;
  std::string emit = "json";  // json | text
};

int runSolveCommand(const SolveOptions& options, std::ostream& out, std::ostream& err);

}  // namespace tilesched::driver
