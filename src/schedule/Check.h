// The independent schedule checker (regalloc2's checker.rs; SPEC §5). Shares
// no code with the Z3 encoding, the problem builder or the fallback: it reads
// the analyses' unit lists and a KernelSchedule and re-derives every
// constraint from them.
//
// Expects: a KernelSchedule for the kernel the analysis was made of.
// Guarantees: returns one typed error per violated constraint (empty when the
// schedule is legal):
//  - Shape: a list's vectors have one entry per unit, starts >= 0, II >= 1,
//    stage = floor(start / II), a decision per storage with >= 1 version;
//  - Dependency: s_w - s_u >= l - II·d, d = 0 (same iteration), the storage's
//    version count (versioned), 1 (carried), the ring distance (manual),
//    with latencies through nested loops taken from their own schedules;
//  - PipeOverlap: units sharing a pipe have disjoint busy intervals
//    [s, s + II_task) modulo II (linearly for the kernel root);
//  - OwnerExclusion: one order per excluded pair, forward and wrap-around;
//  - Window: without enable_offset, |s_a - s_b| < II on a shared pipe;
//  - Capacity: per scope not named by T.annotate_unlimit_memory,
//    Σ versions·aligned bytes (manual rings once) <= capacity;
//  - Versions: solver counts within 1..bound, fixed counts as annotated;
//  - CounterStage: under enable_offset, a storage with more than one version
//    whose epochs a counter clocks (mode "counter", or "auto" with several
//    owners; SPEC §6.1) is accessed by units of one stage only.
//
//   loop s: #2 -> #3 RAW c_ub needs s3 - s2 >= 48 - 164·0, got 302 - 254 = 48  ok
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "analysis/TaskGraph.h"
#include "ir/IR.h"
#include "schedule/Schedule.h"
#include "target/Target.h"

namespace tilesched::schedule {

enum class ScheduleErrorKind {
  Shape,
  Dependency,
  PipeOverlap,
  OwnerExclusion,
  Window,
  PipeOrder,
  Capacity,
  Versions,
  CounterStage
};
std::string_view scheduleErrorKindName(ScheduleErrorKind kind);

struct ScheduleError {
  ScheduleErrorKind kind = ScheduleErrorKind::Shape;
  const ir::ForStmt* loop = nullptr;  // null: the kernel root or the whole kernel
  std::string message;
};

// The storage's version index is a counter (SPEC §6.1): "counter" asked for
// on any alias, or "auto" / no mode with several owners.
bool clockedByCounter(const ir::Kernel& kernel, const analysis::Ownership& ownership,
                      const ir::Storage& storage);

// One list against its own dependencies (latencies as they are in `list`);
// `clockedByCounter` (may be empty: no such storage) selects the storages of
// the CounterStage rule.
std::vector<ScheduleError> checkListSchedule(
    const analysis::UnitList& list, const ListSchedule& schedule,
    const std::function<int64_t(const ir::Storage&)>& versionsOf,
    const std::function<bool(const ir::Storage&)>& clockedByCounter = {});

// The whole kernel: every list (latencies through nested loops recomputed
// from the schedule's own inner solutions), versions and capacity.
std::vector<ScheduleError> checkSchedule(const KernelSchedule& schedule,
                                         const analysis::KernelAnalysis& analysis,
                                         const ir::Kernel& kernel, const Target& target);

std::string formatScheduleErrors(const std::vector<ScheduleError>& errors);

}  // namespace tilesched::schedule
