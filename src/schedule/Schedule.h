// The schedule as a value (SPEC §5; LLVM ModuloSchedule.h): what the Z3
// modulo scheduler returns for one kernel and what the lowering passes
// (version modes, materialisation, synchronisation, stages) consume.
//
// Nothing here depends on Z3: tests build schedules by hand and feed them to
// the lowering, so solver bugs and lowering bugs show up separately, and the
// checker (schedule/Check.h) verifies any schedule against the analyses.
//
// Indices: `ListSchedule::start[i]` and `stage[i]` are per unit of the
// analysis' UnitList of that loop (analysis/Tasks.h), in program order.
//
//   loop s (line 40): II 190 (lower bound 190, proven optimal), max stage 1
//     #0 MTE2 copy      start   0  stage 0
//     #1 V    parallel  start 172  stage 0
//     #2 MTE3 copy      start 204  stage 1
//   a_ub: 2 versions (solver, bound 2)   c_ub: 2 versions (solver, bound 2)
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ir/IR.h"
#include "schedule/Solution.h"

namespace tilesched::schedule {

struct SchedulingProblem;  // Problem.h

// Where a storage's version count came from (SPEC §7.3 `buffers[].source`).
enum class VersionSource {
  Solver,      // eligible, count chosen by the solver
  Fixed,       // eligible, count fixed by T.annotate_buffer_versions
  OptOut,      // {buf: 1}
  Manual,      // T.annotate_manual_multi_buffer: versions = ring size, untouched
  Ineligible,  // not owned by any loop (or not an on-chip candidate)
};
std::string_view versionSourceName(VersionSource s);  // "solver", "fixed", "opt-out", ...

// The decision for one storage (all its aliases).
struct StorageDecision {
  ir::Storage storage;
  int64_t versions = 1;  // physical copies; the ring size for manual storages
  VersionSource source = VersionSource::Ineligible;
  int64_t bound = 1;  // SPEC §2.4 version bound (fixed counts may exceed it)
};

// The modulo schedule of one unit list: a loop body, or the kernel root.
struct ListSchedule {
  const ir::ForStmt* loop = nullptr;  // null for the kernel root
  int64_t ii = 0;                     // initiation interval; the makespan for the root
  int64_t iiLowerBound = 0;           // max(resource bound, recurrence bound)
  bool provenOptimal = false;         // every II below `ii` was proven infeasible
  bool fallback = false;              // list-schedule fallback, not a solver answer
  double solveMs = 0;
  SolveStats stats;            // solver calls and where the time went
  std::vector<int64_t> start;  // per unit: s_i = stage_i * ii + r_i, first unit at >= 0
  std::vector<int64_t> stage;  // per unit: start / ii (all 0 for the root)
  int64_t maxStage = 0;
  int64_t makespan = 0;  // one iteration: first start to last completion
  bool enableOffset = false;
  std::string note;  // why not proven optimal, or why the fallback ("" otherwise)
  // Storages whose count the fill step raised above what this schedule needs
  // (FillVersions.h), with that need.
  std::vector<std::pair<ir::Storage, int64_t>> fillRaised;
  // The problem the scheduler solved for this list (memory groups as it saw
  // them), kept so `tilesched explain` reads the real bound terms and
  // capacities; null in hand-written schedules.
  std::shared_ptr<const SchedulingProblem> problem;
};

// The schedule of one kernel.
struct KernelSchedule {
  std::vector<ListSchedule> lists;        // inner loops first, the kernel root last
  std::vector<StorageDecision> storages;  // one per storage, in Kernel::storages order

  const ListSchedule* find(const ir::ForStmt* loop) const;  // null loop: the root
  const StorageDecision* find(const ir::Storage& storage) const;
  // The physical version count of a storage (1 when it has no decision).
  int64_t versionsOf(const ir::Storage& storage) const;
};

}  // namespace tilesched::schedule
