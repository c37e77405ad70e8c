// `--dump-schedule-problems DIR` (SPEC §5): one JSON file per solved list with
// the problem's inputs and the scheduler's result, so other solvers can be run
// on exactly the same problem and compared.
//
// Guarantees: the fields of SPEC §5, flat in one object — inputs
// `num_stages, latencies, iis, resource_flags` (pipe bitmasks MTE1=1 ... S=64),
// `data_deps` ([i, j, distance, latency]; distance -(k+1) = version variable
// of storage k), `resource_deps` ([i, j], pairs sharing a pipe),
// `owner_exclusion_deps` ([i, j, forward_latency, reverse_latency]),
// `storage_sizes` (bytes of one version of storage k), `memory_groups`
// ([capacity, storage ids...]; scopes without a limit are left out),
// `enable_offset`; results `start_times, versions, ii, ii_lower_bound,
// proven_optimal, solve_ms`, and `modulo_versions`: what the modulo schedule
// alone needs (`versions` is that raised where the loop's first iterations
// need more, FillVersions.h; the fill depends on the trip count, which the
// problem does not hold, so `tilesched solve` answers `modulo_versions`). Also `list` ("loop s
// (line 40)" or "kernel root") and `is_loop` (false: a straight-line list; `ii` is its makespan).
// File name: <kernel>.<n>.<loop var>_line<line>.json or <kernel>.<n>.root.json,
// n counting lists in solve order (inner loops first).
//
//   {"num_stages": 2, "latencies": [172, 172, 48, 252], "iis": [82, 82, 48, 72],
//    "resource_flags": [2, 2, 16, 4], "data_deps": [[0, 2, 0, 172], [2, 0, -1, 48], ...],
//    ..., "ii": 164, "ii_lower_bound": 164, "proven_optimal": true, ...}
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "ir/IR.h"
#include "schedule/Problem.h"
#include "schedule/Solution.h"

namespace tilesched::schedule {

nlohmann::json problemJson(const SchedulingProblem& problem, const ProblemSolution& solution);

// `moduloVersions`: the solver's versions before the fill raised them.

// Writes the file; false when it cannot be written.
bool dumpProblem(const std::string& directory, const ir::Kernel& kernel, const ir::ForStmt* loop,
                 int index, const SchedulingProblem& problem, const ProblemSolution& solution,
                 const std::vector<int64_t>& moduloVersions);

}  // namespace tilesched::schedule
