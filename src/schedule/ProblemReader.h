// Reads a scheduling problem from JSON: the keyword arguments of TileLang's
// two solver functions (`z3_schedule_python`, `z3_schedule_loop_python`) or a
// file that `--dump-schedule-problems` wrote (docs/solver-interface.md maps
// every field). The inverse of ProblemDump.h for the inputs.
//
// Expects: any JSON value (a user's file or Python dict).
// Guarantees: either a SchedulingProblem whose every index is in range,
// whose latencies, IIs and sizes are non-negative integers and whose version
// bounds are 1 <= min <= max; or one error naming the field and entry that is
// wrong ("data_deps[2][1]: task 7 does not exist (4 tasks)"). Fields that
// only describe a result (`start_times`, `ii`, ...) are ignored; an unknown
// field is an error, so a misspelt name is not silently dropped. Never throws.
//
//   {"num_stages": 2, "latencies": [172, 48], "iis": [82, 48], "resource_flags": [2, 16],
//    "data_deps": [[0, 1, 0, 172], [1, 0, -1, 48]], "resource_deps": [],
//    "buffer_sizes": [8192], "memory_groups": [[196608, 0]]}
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "schedule/Problem.h"

namespace tilesched::schedule {

enum class ProblemShape { FromInput, Loop, StraightLine };

struct ReadProblem {
  std::optional<SchedulingProblem> problem;
  std::string field;  // the first wrong field, e.g. "data_deps[2][1]" (when !problem)
  std::string message;
  bool verbose = false;  // the caller's `verbose`
};

// FromInput: a loop unless the input says `"is_loop": false`.
ReadProblem readProblem(const nlohmann::json& input, ProblemShape shape);

}  // namespace tilesched::schedule
