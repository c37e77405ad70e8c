// Why the schedule is what it is (issue 10 "Explanations", `tilesched
// explain`, the report's `buffers[].why` and `loops[].ii_bound_by`).
//
// Expects: a KernelSchedule made by scheduleKernel for `kernel` and its
// analysis (each ListSchedule carries the SchedulingProblem it solved).
// Guarantees: the reasons are read off the real computations, never
// re-derived:
//  - per loop, the terms of iiLowerBound (LowerBound.h: the busiest pipe,
//    a critical recurrence cycle, the largest owner exclusion), the term that
//    gives the bound (resource, then recurrence, then owner on a tie; none
//    when no term exceeds 1 and no unit occupies a pipe), whether the II
//    reached it and how the search ended (proven optimal, fallback, timed out,
//    not proven);
//  - per storage (Kernel::storages order, global tensors skipped), the kind
//    of its version count: the annotation that fixed it (fixed, opt-out,
//    manual ring, with its location), why it is not eligible (the ownership
//    analysis' reason), or for solver storages, from the list whose
//    schedule needed the count (neededVersions on its final starts):
//      num_stages — the count is the version bound (Ownership's
//        versionBound, its loop), and the bound proves the cap costs II:
//        lifting the caps of every storage at its bound lowers iiLowerBound,
//        and lifting all of them but this one does not lower it as much;
//      capacity — below the bound, one more version does not fit the scope's
//        memory group as the solver saw it (every other storage at its
//        count), and iiLowerBound with the count as the cap exceeds it with
//        the bound as the cap;
//      schedule-needs — otherwise: the final schedule's lifetimes need
//        exactly this many and no cap is proven to cost II (iiAboveBound
//        flags a loop whose II is above its lower bound, where more versions
//        are not ruled out to help).
//
//   vec_add loop s: II 164 = resource bound, pipe MTE2 (two copies of 82)
//   a_ub 2 versions: schedule-needs (bound 2 from num_stages of loop s)
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/TaskGraph.h"
#include "ir/IR.h"
#include "schedule/LowerBound.h"
#include "schedule/Schedule.h"
#include "target/Target.h"

namespace tilesched::schedule {

enum class IIBoundKind { Resource, Recurrence, Owner, None };
std::string_view iiBoundKindName(IIBoundKind k);  // "resource", "recurrence", "owner", "none"

// How the II search ended.
enum class SearchStatus { ProvenOptimal, Fallback, TimedOut, NotProven };
std::string_view searchStatusName(SearchStatus s);  // "proven-optimal", "fallback", ...

struct LoopExplanation {
  const ir::ForStmt* loop = nullptr;
  const analysis::UnitList* list = nullptr;  // the analysis' unit list (names, locations)
  int64_t ii = 0;
  int64_t lowerBound = 0;
  IIBoundTerms terms;
  IIBoundKind kind = IIBoundKind::None;
  int64_t value = 0;                  // the binding term (== lowerBound)
  std::vector<int> resourceUnits;     // resource: the units occupying the pipe
  std::vector<int64_t> resourceBusy;  // resource: each one's busy cycles (as solved)
  int64_t cycleLatency = 0;           // recurrence: Σ latency of terms.criticalCycle
  int64_t cycleDistance = 0;          // recurrence: Σ distance (versions at their bound)
  const analysis::OwnerExclusion* exclusion = nullptr;  // owner: the pair (units, storage)
  int64_t exclusionForward = 0, exclusionReverse = 0;   // owner: latencies as solved
  SearchStatus status = SearchStatus::NotProven;
  std::string note;  // the schedule's note (why not proven / why the fallback)
};

enum class VersionReason {
  Annotation,  // fixed by T.annotate_buffer_versions
  OptOut,      // {buf: 1}
  Manual,      // T.annotate_manual_multi_buffer ring
  Ineligible,  // not owned by any loop
  NumStages,
  Capacity,
  ScheduleNeeds,
  Fill,  // more than the schedule needs: the loop's first iterations use them (FillVersions.h)
};
std::string_view versionReasonName(VersionReason r);  // "annotation", "opt-out", ...

struct StorageExplanation {
  ir::Storage storage;
  ir::Buffer buffer;  // the allocating buffer
  int64_t versions = 1;
  VersionReason reason = VersionReason::Ineligible;
  SourceLoc annotationLoc;                 // annotation, opt-out, manual
  std::string ineligibleReason;            // ineligible
  const ir::ForStmt* loop = nullptr;       // solver kinds: the loop whose schedule decided it
  int64_t bound = 1;                       // solver kinds: the version bound
  const ir::ForStmt* boundLoop = nullptr;  // whose num_stages gives `bound` (null: none)
  // num_stages: iiLowerBound with every reached cap lifted; capacity:
  // iiLowerBound with the count as this storage's cap, and with the bound.
  std::optional<int64_t> iiBoundWithMoreVersions;
  std::optional<int64_t> iiBoundAtCount, iiBoundAtBound;
  bool iiAboveBound = false;   // the loop's II is above its lower bound
  int64_t loopLowerBound = 0;  // the loop's iiLowerBound (all caps as the solver saw them)
  // Limited scopes: the capacity the solver enforced (the whole scope) and
  // the bytes the scope would hold with one more version of this storage
  // (every other storage at its count).
  std::optional<int64_t> capacity;
  int64_t bytesPerVersion = 0;
  int64_t bytesWithOneMore = 0;
  bool crossIteration = true;  // solver kinds: some dependency crosses iterations through it
  int64_t scheduleNeeds = 0;   // fill: the count the modulo schedule itself needs
};

struct KernelExplanation {
  std::vector<LoopExplanation> loops;        // scheduled loops, in schedule order
  std::vector<StorageExplanation> storages;  // on-chip storages, Kernel::storages order

  const LoopExplanation* find(const ir::ForStmt* loop) const;
  const StorageExplanation* find(const ir::Storage& storage) const;
};

KernelExplanation explainSchedule(const analysis::KernelAnalysis& analysis,
                                  const ir::Kernel& kernel, const KernelSchedule& schedule,
                                  const Target& target);

// For the explanations' text and JSON: the unit a LoopExplanation's index
// names (null when out of range), the dependency of a recurrence edge (null:
// the window of two units of one pipe), the dependency's kind ("RAW", or
// "window") and what it is on (a storage or a scalar). A unit's statement
// is named by ir::printStmtFirstLine.
const analysis::Unit* explanationUnit(const LoopExplanation& e, int index);
const analysis::Dependency* depOf(const LoopExplanation& e, const RecurrenceEdge& edge);
std::string depWhat(const analysis::Dependency* d);
std::string depOn(const analysis::Dependency* d);

}  // namespace tilesched::schedule
