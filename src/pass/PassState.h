// What the passes hand on to each other (SPEC §4): the kernel file and its
// diagnostics, the options every pass reads, and each pass's product, so a
// pipeline is a list of pass names run over one PipelineState.
//
// Expects: `target` outlives the state; `program` and `analyses` are shared
// (not copied) when one front end feeds several lowerings (`run --compare`),
// because every analysis points into its program's kernels.
// Guarantees: kernelIR(k) is the newest IR of kernel k (the lowering's once a
// lowering pass has run, the elaborated kernel before), the IR the printing
// and verifying instrumentation looks at and `simulate` runs.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/TaskGraph.h"
#include "frontend/Elaborator.h"
#include "ir/IR.h"
#include "schedule/Schedule.h"
#include "schedule/Scheduler.h"
#include "sim/Run.h"
#include "support/Diagnostics.h"
#include "target/Target.h"
#include "transform/Lowering.h"

namespace tilesched::pass {

// How `schedule` chooses the versions: the solver, a fixed rule, or a
// schedule read from a file (`--schedule-file`, checked before it is used).
enum class ScheduleRule { Auto, None, Double, File };

// The rule of a `--schedule` value (auto for anything but none and double).
inline ScheduleRule scheduleRuleOf(std::string_view schedule) {
  return schedule == "none"     ? ScheduleRule::None
         : schedule == "double" ? ScheduleRule::Double
                                : ScheduleRule::Auto;
}

struct PassOptions {
  frontend::FrontendOptions frontend;
  ScheduleRule rule = ScheduleRule::Auto;
  schedule::ScheduleOptions solver;
  // ScheduleRule::File: the file's name (for messages) and its text.
  std::string scheduleFile, scheduleText;
  // `compile` and `pin` write the chosen versions back into the kernel's
  // annotations (the IR after `schedule` shows them); `run` lowers from the
  // schedule itself.
  bool writeBackVersions = false;
  sim::RunOptions run;
};

// The products of the per-kernel passes, one per kernel of the program.
struct KernelState {
  std::optional<schedule::KernelSchedule> schedule;  // schedule
  std::optional<transform::LoweringPlan> plan;       // version-modes
  std::optional<ir::Kernel> lowered;                 // materialize-versions onwards
  transform::SyncStats sync;                         // insert-synchronization
};

struct PipelineState {
  PipelineState(std::shared_ptr<const SourceFile> file, const Target& target, PassOptions options)
      : file(file), diags(file), target(target), options(std::move(options)) {}

  std::shared_ptr<const SourceFile> file;
  DiagnosticEngine diags;
  const Target& target;
  PassOptions options;

  std::shared_ptr<ir::Program> program;                             // elaborate
  std::shared_ptr<std::vector<analysis::KernelAnalysis>> analyses;  // analyze
  std::vector<KernelState> kernels;                                 // analyze sizes it
  std::optional<sim::ProgramRun> runs;                              // simulate
  sim::RunRefusal refusal;                                          // simulate, when it ran nothing

  size_t numKernels() const { return program ? program->kernels.size() : 0; }
  const ir::Kernel& sourceKernel(size_t k) const { return program->kernels[k]; }
  const ir::Kernel& kernelIR(size_t k) const {
    return kernels.size() > k && kernels[k].lowered ? *kernels[k].lowered : program->kernels[k];
  }
  const analysis::KernelAnalysis& analysis(size_t k) const { return (*analyses)[k]; }
  // Kernel k as the lowering left it (after insert-synchronization).
  std::optional<transform::LoweredKernel> loweredKernel(size_t k) const;

  // A state for another lowering of the same front end's result: the
  // program and analyses shared, the per-kernel products and the
  // diagnostics fresh.
  PipelineState forkAfterFrontEnd(PassOptions options) const;
};

}  // namespace tilesched::pass
