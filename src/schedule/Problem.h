// The scheduling problem of one unit list as plain numbers (SPEC §5): what the
// Z3 encoding, the list-schedule fallback, the lower bounds and
// `--dump-schedule-problems` all read. Built from the analyses of one loop
// body (or the kernel root); knows nothing of Z3.
//
// Expects: a unit list whose dependency latencies are current (inner loops
// already solved and `analysis::recomputeDependencyLatencies` run).
// Guarantees: one entry per unit (same indices as the list); one dependency
// per analysis dependency with its distance resolved: 0 (same iteration), a
// constant (fixed count, 1 for carried data, the exact manual distance) or
// the version variable of an automatic storage owned by this loop; owner
// exclusions with both latencies; one version variable per automatic storage
// that a "versioned" dependency mentions. Memory groups are filled by the
// caller, which knows what the rest of the kernel already uses.
//
//   vec_add loop s:  latencies [172 172 48 252]  iis [82 82 48 72]
//                    pipes [MTE2 MTE2 V MTE3]
//                    deps  [0 2 0 172] [2 0 v(a_ub) 48] ...   versions a_ub in 1..2
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "analysis/Ownership.h"
#include "analysis/Tasks.h"
#include "ir/IR.h"

namespace tilesched::schedule {

struct ProblemDep {
  int from = 0, to = 0;
  int64_t latency = 0;
  int64_t distance = 0;  // used when versionVar < 0
  int versionVar = -1;   // index into SchedulingProblem::versions, or -1
};

struct ProblemExclusion {
  int a = 0, b = 0;
  int64_t forwardLatency = 0;  // a before b: s_b - s_a >= forward
  int64_t reverseLatency = 0;  // b before a: s_a - s_b >= reverse
};

// A version variable: an automatic storage owned by this loop.
struct ProblemVersion {
  ir::Storage storage;
  int64_t bytes = 0;        // one version, aligned
  int64_t minVersions = 1;  // > 1 when a sibling owner already needed more
  int64_t maxVersions = 1;  // SPEC §2.4 bound
};

// Units that must share one stage (SPEC §6.1): under enable_offset a storage
// whose epochs are counted ("counter" mode: asked for explicitly, or the mode
// "auto" must take with several owners) cannot be accessed at several stages.
// Applies only when the storage has more than one version: always when
// `versionVar` < 0, else when that version variable is above 1.
struct SameStageGroup {
  ir::Storage storage;
  std::vector<int> units;  // >= 2, ascending
  int versionVar = -1;
};

// Σ versions·bytes of `versions` <= capacity (capacity already net of what
// the rest of the kernel uses in that scope).
struct MemoryGroup {
  MemScope scope = MemScope::UB;
  int64_t capacity = 0;
  std::vector<int> versions;
};

// Lists of more units than this keep the list schedule without Z3, and their
// explanations leave out the critical cycle (docs/scheduler.md, "Deadlines").
inline constexpr int kMaxSolverUnits = 128;

struct SchedulingProblem {
  bool isLoop = true;  // false: the kernel root, minimise the makespan
  bool enableOffset = false;
  int64_t numStages = 1;
  std::vector<int64_t> latency, ii;
  std::vector<uint32_t> pipeMask;
  std::vector<ProblemDep> deps;
  std::vector<ProblemExclusion> exclusions;
  std::vector<ProblemVersion> versions;
  std::vector<MemoryGroup> memoryGroups;
  std::vector<SameStageGroup> sameStage;  // enable_offset loops only
  // Constraints a caller of `tilesched solve` / the Python module may ask for
  // (TileLang's solver interface, docs/solver-interface.md); the compiler's own
  // problems leave them empty. With k_i = floor(s_i / II), r_i = s_i mod II:
  //  - phaseOrder (a, b): loops r_a <= r_b, straight-line lists s_a <= s_b;
  //  - stageOrder (u, w): k_u <= k_w;
  //  - fixedStages: k_i == fixedStages[i] where fixedStages[i] >= 0 (empty or
  //    -1: free). The caller's lists fix every unit; the compiler's own fix
  //    the units of `with T.Stage(k)` blocks.
  std::vector<std::pair<int, int>> phaseOrder, stageOrder;
  std::vector<int64_t> fixedStages;
  // The compiler's enable_offset loops (not a caller's problem): the staged
  // lowering issues a flat iteration's units in program order (SPEC §6.4), so
  // a dependence from a unit to one before it (or itself) must reach a later
  // flat iteration: distance + k_to - k_from >= 1 (docs/scheduler.md, "Stages").
  bool programOrderStages = false;

  int numUnits() const { return static_cast<int>(latency.size()); }
  // A loop constrained on its stages or phases: the solver needs k_i, so II
  // is a constant per probe.
  bool constrainsStages() const {
    return isLoop && (!phaseOrder.empty() || !stageOrder.empty() || !fixedStages.empty() ||
                      (enableOffset && programOrderStages));
  }
  // Units a and b occupy a common pipe.
  bool sharePipe(int a, int b) const { return (pipeMask[a] & pipeMask[b]) != 0; }
  // Cycles from a unit's start until it has completed and freed its pipes.
  int64_t span(int i) const { return latency[i] > ii[i] ? latency[i] : ii[i]; }
};

// What is known about each storage's versions when the list is built.
struct VersionContext {
  const analysis::Ownership* ownership = nullptr;
  const ir::Kernel* kernel = nullptr;
  // Per Kernel::storages index: versions already chosen by an earlier sibling
  // owner (>= 1).
  const std::vector<int64_t>* chosen = nullptr;
  // Per Kernel::storages index: bytes of one version after alignment.
  const std::vector<int64_t>* alignedBytes = nullptr;
};

// The fixed count of T.annotate_buffer_versions for `storage`, if any
// (`(1, "auto")` gives 1; a bare `{buf: 1}` is an opt-out, not a count).
std::optional<int64_t> fixedVersionCount(const ir::Kernel& kernel, const ir::Storage& storage);

// The storage's epochs are counted by a counter (SPEC §6.1): an explicit
// "counter" mode on any alias, or "auto" (or no mode) with several owners.
// Only meaningful for automatic storages.
bool countsEpochs(const ir::Kernel& kernel, const analysis::StorageOwnership& ownership);

SchedulingProblem buildProblem(const analysis::UnitList& list, const VersionContext& context);

// True when every fixed stage holds in the modulo schedule (start, ii).
bool keepsFixedStages(const SchedulingProblem& p, const std::vector<int64_t>& start, int64_t ii);
// An II at which every unit fits in one window after the other, stage by
// stage: fixed stages that any II meets are met at this one, so it bounds
// the solver's search when the list schedule does not keep them.
int64_t iiKeepingEveryStage(const SchedulingProblem& p);

}  // namespace tilesched::schedule
