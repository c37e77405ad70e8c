// The scheduling analyses of one kernel in one call, and their visible
// results: `--emit tasks` text and the report's `tasks`, `deps`, `eligible`,
// `manual` and `owner_loops` fields (SPEC §4.1, §4.2, §2.4, §7.3).
//
// Expects: a verified kernel and a loaded target.
// Guarantees: runs extractUnits → analyzeOwnership → computeDependencies;
// warnings go to `diags` (once per storage); deterministic text and JSON.
//
//   kernel vec_add (line 29), grid 4
//     buffers:
//       a_ub       shared         eligible, owners: s (line 40), bound 2
//     ...
//       loop s (line 40): T.Pipelined, 4 trips, num_stages 2, estimated II 554, iteration 554
//       cycles
//         tasks:
//           #0  MTE2         copy gm_to_ub  lat   172  ii    82  line  41  R A[...]  W a_ub[0:1024]
//           ...
//         deps:
//           RAW  #0 -> #2  distance 0            lat   172  a_ub
//           WAR  #2 -> #0  distance versions     lat    48  a_ub
// (tests/analysis/golden/vec_add.tasks holds the whole graph.)
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "analysis/CoreAssignment.h"
#include "analysis/Dependencies.h"
#include "analysis/Ownership.h"
#include "analysis/Tasks.h"
#include "cost/InstructionCost.h"
#include "ir/IR.h"
#include "support/Diagnostics.h"
#include "target/Target.h"

namespace tilesched::analysis {

struct AnalysisOptions {
  cost::CostOptions cost;
  unsigned overlapTimeoutMs = 200;  // per Z3 overlap query
};

struct KernelAnalysis {
  const ir::Kernel* kernel = nullptr;  // must outlive the analysis
  UnitList root;
  Ownership ownership;
  OverlapStats overlapStats;
  // Which core runs each unit (the assign-cores pass; unset before it).
  std::optional<CoreAssignment> cores;
  bool mixedCores() const { return cores && cores->kind == KernelCores::Mixed; }

  // The unit list of a loop's body (any loop of the kernel), or null.
  const UnitList* findLoop(const ir::ForStmt* loop) const;
  UnitList* findLoop(const ir::ForStmt* loop);
};

KernelAnalysis analyzeKernel(const ir::Kernel& kernel, const Target& target,
                             DiagnosticEngine& diags, const AnalysisOptions& options = {});
std::vector<KernelAnalysis> analyzeProgram(const ir::Program& program, const Target& target,
                                           DiagnosticEngine& diags,
                                           const AnalysisOptions& options = {});

// A short name of what a unit does: "copy gm_to_ub", "gemm", "parallel", "for k".
std::string opName(const Unit& u);

// `--emit tasks`: per kernel the buffers' eligibility and owners, then per
// unit list (kernel root and every loop) the units and the dependencies.
std::string printTaskGraph(const KernelAnalysis& analysis);
std::string printTaskGraph(const std::vector<KernelAnalysis>& analyses);

// ------------------------------------------------------------------ JSON

// `tasks` of one unit list: [{"id", "kind": "task"|"loop", "op", "pipes": [..],
// "pipe_mask", "latency", "ii", "line", "guard", "reads": [..], "writes": [..],
// "copy_path"?, "mte1": {"latency", "ii"}?}]
nlohmann::json tasksJson(const UnitList& list);
// `deps` of one unit list: [{"kind": "RAW"|"WAR"|"WAW", "from", "to",
// "distance_kind": "same"|"versioned"|"carried"|"exact", "distance",
// "latency", "storage" (buffer name) | "var"}] followed by owner exclusions
// as {"kind": "owner_exclusion", "from", "to", "storage", "forward_latency",
// "reverse_latency"}.
nlohmann::json depsJson(const UnitList& list);
// The numbers `--emit tasks` prints in a loop's header: {"for_kind":
// "T.Pipelined"|..., "trips": N|null (symbolic), "estimated": bool (a list
// schedule, not a solved one), "ii", "iteration" (one iteration's makespan),
// "total" ((trips - 1) * ii + iteration), "starts": [per unit start offset]}.
nlohmann::json timingJson(const ir::ForStmt& loop, const LoopTiming& timing);
// {"tasks": ..., "deps": ..., "timing": ...} of `loop`'s body (nulls when it
// is unknown).
nlohmann::json loopAnalysisJson(const KernelAnalysis& analysis, const ir::ForStmt& loop);
// {"eligible": bool, "manual": bool, "ring": N|null, "owner_loops":
// [{"var", "line"}], "guarded_epoch": bool, "non_affine_nest": bool,
// "version_bound": N, "broadcast_fill_lines": [line, ...],
// "ineligible_reason": str|null} for a buffer (its storage's entry).
nlohmann::json bufferAnalysisJson(const KernelAnalysis& analysis, const ir::Buffer& buffer);
// Fills a kernel entry of the report in place: each `buffers[i]` (matched by
// name) gets bufferAnalysisJson's fields, each `loops[i]` (matched by "line"
// and "var") gets `tasks`, `deps` and `timing`, and `root` gets the kernel root's
// {"tasks", "deps"}.
void annotateKernelReport(nlohmann::json& kernelEntry, const KernelAnalysis& analysis);

}  // namespace tilesched::analysis
