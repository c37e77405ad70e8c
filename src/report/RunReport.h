// The `simulation` objects of the JSON report (docs/report.md) and the
// lowering's decisions in a kernel entry, for `tilesched run`: one kernel's
// run (its blocks, pipes, tensors, races, errors, allocations), the run as a
// whole (summed over the kernels, which run one after the other), and the
// versions, modes, IIs and synchronisation the lowering chose.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "analysis/FillDrain.h"
#include "ir/IR.h"
#include "sim/Run.h"
#include "target/Target.h"
#include "transform/Lowering.h"

namespace tilesched::report {

// One kernel of a run: the source kernel, what ran, its run and its lowering.
struct KernelOutcome {
  const ir::Kernel* kernel;
  ir::Kernel lowered;
  sim::KernelRun run;
  std::optional<transform::LoweredKernel> lowering;  // none | double | auto
  analysis::FillDrain fillDrain;                     // of the source kernel's task graph
  // Cube and vector tasks in one kernel (analysis/CoreAssignment.h): the run
  // is on one core with every pipe, not on a core group.
  bool mixedCores = false;
};

// The busiest pipe of a run (S on an empty kernel): where the bound comes from.
Pipe bottleneckPipe(const sim::SimResult& r);
// Cycles the pipes waited at barriers, summed over the blocks.
int64_t barrierStall(const sim::SimResult& r);
// Sum over waves of the largest per-block bound of busy + fill + drain
// (the simulator's own `lower_bound` with the fill and drain added).
int64_t fillDrainLowerBound(const sim::SimResult& r, const analysis::FillDrain& fd);

// `kernels[].simulation` of one kernel; `describe` names an access's
// instruction; `race_reports[].storage` is left null for the caller.
nlohmann::json simulationJson(const KernelOutcome& k, const std::string& schedule,
                              const std::string& file,
                              const std::function<std::string(const sim::AccessOwner&)>& describe);

// Fills a kernel entry with the lowering's decisions
// (`buffers[].versions|source|mode`, `annotations.buffer_versions`, `loops[].ii...`,
// `memory`, `sync`).
void annotateLowering(nlohmann::json& kernel, const ir::Kernel& source,
                      const transform::LoweredKernel& lk, const Target& target);

// The top-level `simulation`: the kernels' objects summed.
nlohmann::json combinedSimulation(const std::vector<nlohmann::json>& sims);

}  // namespace tilesched::report
