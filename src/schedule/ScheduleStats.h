// `tilesched compile --stats`: the scheduler's debug counters (STYLE.md
// "statistics / bail-out counters"), one line per scheduled list and a total
// per kernel: solver checks by answer (sat, unsat, unknown — "unknown"
// includes checks cut or skipped by the work budget), fallbacks, proofs, and
// the wall and CPU milliseconds of each solve split into the II search and
// the refinement of the secondary objectives.
//
// Expects: a KernelSchedule of `kernel`.
// Guarantees: lists in the schedule's order (inner loops first, the root
// last); deterministic apart from the millisecond figures.
//
//   # scheduler stats of main
//   loop s (line 40): 2 checks (1 sat, 1 unsat, 0 unknown), proven, 3.1 ms (II search 2.5,
//     refine 0.6; cpu 2.9)
//   kernel root: 1 checks (1 sat, 0 unsat, 0 unknown), proven, 0.2 ms (...)
//   total: 2 lists, 3 checks, 0 unknown, 0 fallbacks, 0 not proven, 3.3 ms (cpu 3.1)
#pragma once

#include <string>

#include "ir/IR.h"
#include "schedule/Schedule.h"

namespace tilesched::schedule {

std::string printScheduleStats(const ir::Kernel& kernel, const KernelSchedule& schedule);

}  // namespace tilesched::schedule
