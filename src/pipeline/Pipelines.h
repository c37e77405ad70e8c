// The pipelines: the one place the order of the passes is written (SPEC §4).
// Every command runs one of these lists through pass::PassManager; the
// passes themselves are in pass::registry().
//
//   compile, explain, pin   elaborate, analyze, assign-cores, schedule
//   run (auto|none|double)  elaborate, analyze, assign-cores, schedule, version-modes,
//                           materialize-versions, insert-synchronization,
//                           verify-lowered-sync, simulate
//   run --schedule serial   elaborate, analyze, assign-cores, lower-serial, simulate
//   run --schedule as-written  elaborate, analyze, assign-cores, simulate
//   run --compare           the front end once, then each mode's lowering
//                           and simulate on a fork of its state
//
// Guarantees: every list is a subsequence of the registry, in its order
// (a test checks it).
#pragma once

#include <string_view>
#include <vector>

namespace tilesched::pipeline {

using PassList = std::vector<std::string_view>;

inline PassList frontEnd() { return {"elaborate", "analyze", "assign-cores"}; }

// `compile`, `explain` and `pin`: the front end and the schedule.
inline PassList compile() { return {"elaborate", "analyze", "assign-cores", "schedule"}; }

// What turns an analysed kernel into the one `simulate` runs, for a
// `--schedule` value: the schedule and the lowering (auto, none, double),
// the serial baseline (serial), or nothing (as-written).
inline PassList lowering(std::string_view schedule) {
  if (schedule == "serial") return {"lower-serial"};
  if (schedule == "as-written") return {};
  return {"schedule", "version-modes", "materialize-versions", "insert-synchronization",
          "verify-lowered-sync"};
}

// `run --compare`, per mode, after the shared front end.
inline PassList afterFrontEnd(std::string_view schedule) {
  PassList list = lowering(schedule);
  list.push_back("simulate");
  return list;
}

// `run --schedule S`.
inline PassList run(std::string_view schedule) {
  PassList list = frontEnd();
  for (std::string_view p : afterFrontEnd(schedule)) list.push_back(p);
  return list;
}

}  // namespace tilesched::pipeline
