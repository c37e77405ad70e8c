// `tilesched explain FILE [-D ...] [--func] [--target]` (issue 10
// "Explanations"): per scheduled loop what bounds its II and how the search
// ended, per on-chip buffer why it got its version count; and the same facts
// in the JSON report (`buffers[].why`, `loops[].ii_bound_by`,
// docs/scheduler.md "Explanations").
//
// Expects: an auto schedule (ListSchedules carrying their problems); the
// explanations themselves come from schedule::explainSchedule.
//
//   # explain vec_add (examples/vec_add.py, target ascend950)
//   loop s at examples/vec_add.py:40:9: II 164, lower bound 164, proven optimal
//     bound by resource: pipe MTE2 busy 164 cycles per iteration
//   ...
//   a_ub   examples/vec_add.py:35:13   2 versions   schedule-needs: ...
#pragma once

#include <iosfwd>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "analysis/TaskGraph.h"
#include "ir/IR.h"
#include "pass/PassManager.h"
#include "schedule/Explain.h"
#include "schedule/Schedule.h"
#include "target/Target.h"

namespace CLI {
class App;
}

namespace tilesched::driver {

struct ExplainOptions {
  std::string file;
  std::vector<std::string> defines;
  std::string func;
  std::string target;
  unsigned solverTimeoutMs = 2000;
  pass::Instrumentation passes;  // --print-after, --time-passes, --stats, ...
};

CLI::App* addExplainCommand(CLI::App& app, ExplainOptions& options);
int runExplainCommand(const ExplainOptions& options, std::ostream& out, std::ostream& err);

// A kernel file compiled, analysed and scheduled (auto; the `compile`
// pipeline), as `explain` and `pin` need it. `scheduleFile` returns kExitOk,
// or the exit code of a usage or compile error after writing its messages to
// `err`; on success the diagnostics (warnings) are left in `state->diags`
// for the caller to render, and the pass flags' IR and times are on `out`.
struct ScheduledFile {
  std::optional<Target> target;
  std::unique_ptr<pass::PipelineState> state;
  std::unique_ptr<pass::PassManager> passes;

  size_t numKernels() const { return state->numKernels(); }
  ir::Kernel& kernel(size_t k) const { return state->program->kernels[k]; }
  const analysis::KernelAnalysis& analysis(size_t k) const { return state->analysis(k); }
  const schedule::KernelSchedule& schedule(size_t k) const { return *state->kernels[k].schedule; }
};
int scheduleFile(const ExplainOptions& options, std::ostream& out, std::ostream& err,
                 ScheduledFile& scheduled);

// The human explanation of one kernel.
std::string printExplanation(const ir::Kernel& kernel, const schedule::KernelExplanation& e,
                             const std::string& file, const Target& target);

}  // namespace tilesched::driver
