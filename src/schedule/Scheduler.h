// AutoSchedule's scheduling step (SPEC §5): the modulo schedule of every loop,
// inner loops first, then the makespan-minimal schedule of the kernel root,
// and the version count of every storage.
//
// Expects: the analyses of the kernel (analysis::analyzeKernel) and the
// target it was analysed for.
// Guarantees:
//  - first the capacity pre-check (CapacityCheck.h): when one version of
//    every storage (fixed counts as annotated) exceeds a scope, an error at
//    the loop or allocation and an empty schedule (`lists` empty);
//  - otherwise one ListSchedule per unit list, inner loops first and the
//    root last; a nested loop is one unit of its parent whose latency is its
//    solved (trips - 1)·II + iteration time;
//  - every list's schedule is accepted by the independent checker
//    (Check.h) before it is used; a rejected solver answer is replaced by
//    the list-schedule fallback; the whole kernel schedule (capacity
//    included) is checked at the end;
//  - one StorageDecision per storage, Kernel::storages order: solver
//    versions are the smallest the final schedules need, fixed counts are
//    honoured, opt-out / manual / ineligible storages keep theirs;
//  - one Z3 context per call, fixed seed, one thread, budgets in Z3 work
//    (resource units, not time): deterministic on any load.
//
//   for s in T.Pipelined(4, num_stages=2):   loop s: II 164 (bound 164, proven)
//       T.copy(A[...], a_ub)                   #0 stage 0 start 0
//       T.copy(B[...], b_ub)                   #1 stage 0 start 82
//       for i in T.Parallel(1024): ...         #2 stage 1 start 254
//       T.copy(c_ub, C[...])                   #3 stage 1 start 302
//                                            a_ub 2, b_ub 2, c_ub 2 (solver)
#pragma once

#include <string>

#include "analysis/TaskGraph.h"
#include "ir/IR.h"
#include "schedule/Schedule.h"
#include "support/Diagnostics.h"
#include "target/Target.h"

namespace tilesched::schedule {

// The whole pass (every list of a kernel) has this many times the per-list
// budget; lists reached after that keep their list schedule without Z3.
inline constexpr unsigned kPassBudgetLists = 4;

struct ScheduleOptions {
  unsigned solverTimeoutMs = 2000;  // per list (`--solver-timeout-ms`); the pass: 4 times that
  std::string dumpDirectory;        // `--dump-schedule-problems DIR` ("" = off)
};

KernelSchedule scheduleKernel(const analysis::KernelAnalysis& analysis, const ir::Kernel& kernel,
                              const Target& target, const ScheduleOptions& options,
                              DiagnosticEngine& diags);

}  // namespace tilesched::schedule
