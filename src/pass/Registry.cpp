// The registry (see Pass.h) and each named pass's run function: a thin
// adapter from the PipelineState to the pass's own entry point, which lives
// in its layer (frontend/, analysis/, schedule/, transform/, sim/) with the
// header that says what it assumes and guarantees.
#include <fmt/format.h>

#include "ir/Functor.h"
#include "ir/Verifier.h"
#include "pass/Pass.h"
#include "pass/PassState.h"
#include "schedule/Check.h"
#include "schedule/ScheduleParser.h"
#include "schedule/ScheduleStats.h"
#include "schedule/WriteBack.h"
#include "transform/LoweredVerifier.h"
#include "transform/Materialize.h"
#include "transform/SerialLowering.h"
#include "transform/SyncInsertion.h"
#include "transform/VersionModes.h"

namespace tilesched::pass {

namespace {

// True when `run` added no error to the state's diagnostics.
template <typename F>
bool noNewErrors(PipelineState& state, F&& run) {
  size_t errors = state.diags.numErrors();
  run();
  return state.diags.numErrors() == errors;
}

// elaborate (and forkAfterFrontEnd) size the per-kernel products.
KernelState& kernelState(PipelineState& state, size_t k) { return state.kernels.at(k); }

bool elaborate(PipelineState& state) {
  auto program = frontend::compileSource(state.file, state.options.frontend, state.diags);
  if (program) state.program = std::make_shared<ir::Program>(std::move(*program));
  state.kernels.assign(state.numKernels(), {});
  return state.program && !state.diags.hasErrors();
}

// Core assignment of every kernel, into its analysis (analysis/CoreAssignment.h).
bool assignCores(PipelineState& state) {
  return noNewErrors(state, [&] {
    for (auto& a : *state.analyses)
      a.cores = analysis::assignCores(
          a.root, state.target, state.diags,
          a.kernel->manualCores ? a.kernel->manualCores->vectorCores : a.kernel->vectorCores,
          a.kernel->manualCores.has_value());
  });
}

bool analyze(PipelineState& state) {
  state.analyses = std::make_shared<std::vector<analysis::KernelAnalysis>>(
      analysis::analyzeProgram(*state.program, state.target, state.diags));
  // Errors of the analyses (nested ownership claims, ...) stop the pipeline.
  return !state.diags.hasErrors();
}

// The schedule of kernel k from --schedule-file, accepted by the independent
// checker; nullopt after an error.
std::optional<schedule::KernelSchedule> readSchedule(PipelineState& state, size_t k) {
  const PassOptions& o = state.options;
  const ir::Kernel& kernel = state.sourceKernel(k);
  std::string error;
  auto s = schedule::parseSchedule(o.scheduleText, kernel, state.analysis(k), error);
  if (!s) {
    state.diags.error({}, fmt::format("schedule file '{}': {}", o.scheduleFile, error));
    return std::nullopt;
  }
  auto problems = schedule::checkSchedule(*s, state.analysis(k), kernel, state.target);
  if (!problems.empty()) {
    // One error, one note per violated constraint (schedule/Check.h).
    auto& d = state.diags.error(
        {}, fmt::format("schedule file '{}': the schedule of '{}' is not legal ({} problem{})",
                        o.scheduleFile, kernel.displayName(), problems.size(),
                        problems.size() == 1 ? "" : "s"));
    for (const auto& p : problems) {
      std::string text = schedule::formatScheduleErrors({p});
      if (!text.empty() && text.back() == '\n') text.pop_back();
      d.notes.push_back({SourceLoc{}, text});
    }
    return std::nullopt;
  }
  return s;
}

// A kernel in the manual form of a mixed kernel (`with T.Cube()` /
// `T.Vector()`): not scheduled yet, so every lowering pass leaves it as
// written (docs/language.md, "Mixed kernels").
bool manualForm(const PipelineState& state, size_t k) {
  return state.sourceKernel(k).manualCores.has_value();
}

bool scheduleKernel(PipelineState& state, size_t k) {
  KernelState& ks = kernelState(state, k);
  if (manualForm(state, k)) {
    state.diags.warning(
        state.sourceKernel(k).manualCores->loc,
        "this kernel is written in the manual form ('with T.Cube()' / 'with T.Vector()' blocks "
        "and their cross-core flags), which tilesched does not schedule yet: every --schedule "
        "runs it as written, as upstream does with TL_ENABLE_AUTO_SCHEDULE=False");
    ks.schedule = schedule::KernelSchedule{};  // no loop is scheduled
    return true;
  }
  return noNewErrors(state, [&] {
    const PassOptions& o = state.options;
    if (o.rule == ScheduleRule::File)
      ks.schedule = readSchedule(state, k);
    else if (o.rule == ScheduleRule::Auto)
      ks.schedule = schedule::scheduleKernel(state.analysis(k), state.sourceKernel(k), state.target,
                                             o.solver, state.diags);
    else
      ks.schedule = transform::uniformSchedule(state.sourceKernel(k), state.analysis(k),
                                               o.rule == ScheduleRule::None ? 1 : 2, state.target,
                                               state.diags);
    if (!ks.schedule) return;
    if (o.writeBackVersions && !ks.schedule->lists.empty())
      schedule::writeBackVersions(state.program->kernels[k], *ks.schedule, state.diags);
  });
}

std::string scheduleStats(const PipelineState& state, size_t k) {
  const auto& s = state.kernels[k].schedule;
  if (!s || s->lists.empty()) return "";
  return schedule::printScheduleStats(state.sourceKernel(k), *s);
}

const ir::StmtNode* firstAuthorSync(const ir::Stmt& body) {
  const ir::StmtNode* first = nullptr;
  ir::forEachStmt(body, [&](const ir::Stmt& s) {
    if (!first && (s->kind == ir::StmtKind::SetFlag || s->kind == ir::StmtKind::WaitFlag ||
                   s->kind == ir::StmtKind::Barrier))
      first = s.get();
  });
  return first;
}

bool versionModes(PipelineState& state, size_t k) {
  if (manualForm(state, k)) return true;
  KernelState& ks = kernelState(state, k);
  const ir::Kernel& kernel = state.sourceKernel(k);
  if (const ir::StmtNode* sync = firstAuthorSync(kernel.body))
    state.diags.warning(sync->loc,
                        "the scheduled lowering replaces the kernel's own set_flag / wait_flag / "
                        "pipe_barrier / buffer-lock statements with the synchronisation it derives "
                        "(first one here); "
                        "--schedule as-written simulates the kernel's own");
  return noNewErrors(state, [&] {
    ks.plan = transform::chooseVersionModes(kernel, state.analysis(k), *ks.schedule, state.diags);
  });
}

bool materializeVersions(PipelineState& state, size_t k) {
  if (manualForm(state, k)) return true;
  KernelState& ks = kernelState(state, k);
  ks.lowered = transform::materializeVersions(state.sourceKernel(k), *ks.plan, state.target);
  return true;
}

std::string materializeStats(const PipelineState& state, size_t k) {
  const auto& plan = state.kernels[k].plan;
  if (!plan) return "";
  std::string versioned;
  for (const auto& sl : plan->storages)
    if (sl.versions > 1 && sl.buffer)
      versioned +=
          fmt::format("{}{} {}", versioned.empty() ? "" : ", ", sl.buffer->name, sl.versions);
  return fmt::format("# materialize-versions of {}: {}\n", state.sourceKernel(k).displayName(),
                     versioned.empty() ? "no buffer has more than one version" : versioned);
}

bool insertSynchronization(PipelineState& state, size_t k) {
  if (manualForm(state, k)) return true;
  KernelState& ks = kernelState(state, k);
  return noNewErrors(state, [&] {
    ir::Kernel synced = transform::insertSynchronization(
        *ks.lowered, state.analysis(k), *ks.schedule, *ks.plan, state.target, state.diags, ks.sync);
    // The lowered kernel states the versions it was given, so that it reads
    // back (`run --schedule as-written`) with the same memory.
    synced.annotations.selectedVersions.clear();
    for (size_t i = 0; i < ks.plan->storages.size(); ++i) {
      const auto& sl = ks.plan->storages[i];
      if (sl.source == schedule::VersionSource::Ineligible ||
          sl.source == schedule::VersionSource::Manual)
        continue;
      synced.annotations.selectedVersions.push_back({synced.storages[i], sl.versions});
    }
    ks.lowered = std::move(synced);
  });
}

std::string syncStats(const PipelineState& state, size_t k) {
  const transform::SyncStats& s = state.kernels[k].sync;
  std::string ids;
  for (const auto& [ev, n] : s.eventIds)
    ids += fmt::format("{}{} {}", ids.empty() ? "" : ", ", ev, n);
  return fmt::format(
      "# insert-synchronization of {}: {} set_flag, {} wait_flag, {} pipe_barrier; event ids "
      "per hard event: {}\n",
      state.sourceKernel(k).displayName(), s.setFlag, s.waitFlag, s.pipeBarrier,
      ids.empty() ? "none" : ids);
}

bool verifyLoweredSync(PipelineState& state, size_t k) {
  if (manualForm(state, k)) return true;
  const ir::Kernel& lowered = *kernelState(state, k).lowered;
  auto problems = transform::verifyLoweredSync(lowered, state.target.eventIdsPerHardEvent);
  TS_INTERNAL(problems.empty(), "the lowering produced illegal synchronisation: " +
                                    (problems.empty() ? std::string() : problems.front()));
  return true;
}

bool lowerSerial(PipelineState& state, size_t k) {
  kernelState(state, k).lowered = transform::lowerSerial(state.sourceKernel(k));
  return true;
}

bool simulate(PipelineState& state) {
  std::vector<sim::Launch> launches;
  for (size_t k = 0; k < state.numKernels(); ++k) {
    // Never simulate invalid IR, whatever --verify-each says.
    auto problems = ir::verifyKernel(state.kernelIR(k));
    TS_INTERNAL(problems.empty(), fmt::format("the IR of '{}' to simulate is invalid: {}",
                                              state.sourceKernel(k).displayName(),
                                              problems.empty() ? std::string() : problems.front()));
    launches.push_back({&state.sourceKernel(k), &state.kernelIR(k)});
  }
  state.refusal = {};
  state.runs = sim::runLaunches(launches, state.target, state.options.run, state.refusal);
  // A refusal is the command's to report (a usage error or a kernel beyond
  // the simulator's limits), not a compile error.
  return true;
}

std::string simulateStats(const PipelineState& state, size_t k) {
  if (!state.runs || k >= state.runs->launches.size()) return "";
  const sim::SimResult& r = state.runs->launches[k].sim;
  return fmt::format("# simulate of {}: {} cycles, {} instructions, {} races\n",
                     state.sourceKernel(k).displayName(), r.cycles, r.instructions, r.races.size());
}

constexpr Pass kPasses[] = {
    {"elaborate", "parse the kernel file, evaluate its host Python and build the verified tile IR",
     PassScope::Program, "", elaborate},
    {"analyze", "tasks, owner loops, dependences and multi-buffer eligibility of every loop",
     PassScope::Program, "elaborate", analyze},
    {"assign-cores", "the core of the group (cube or vector) that runs each task, and why",
     PassScope::Program, "analyze", assignCores},
    {"schedule",
     "modulo schedule and buffer versions of every loop (Z3; none/double: a fixed rule)",
     PassScope::Kernel, "analyze", nullptr, scheduleKernel, scheduleStats},
    {"version-modes", "how each multi-versioned buffer selects its version (iteration or counter)",
     PassScope::Kernel, "schedule", nullptr, versionModes},
    {"materialize-versions", "give each versioned buffer its leading version dimension",
     PassScope::Kernel, "version-modes", nullptr, materializeVersions, materializeStats,
     /*verifiable=*/false},
    {"insert-synchronization",
     "set_flag / wait_flag / pipe_barrier between the pipes, event ids, stages", PassScope::Kernel,
     "materialize-versions", nullptr, insertSynchronization, syncStats},
    {"verify-lowered-sync", "check that the flags balance on every path (internal error if not)",
     PassScope::Kernel, "insert-synchronization", nullptr, verifyLoweredSync},
    {"lower-serial",
     "the serial baseline (--schedule serial): pipe_barrier(ALL) after every instruction",
     PassScope::Kernel, "elaborate", nullptr, lowerSerial},
    {"simulate", "run the sequential reference and the cycle simulation, check outputs and races",
     PassScope::Program, "elaborate", simulate, nullptr, simulateStats},
};

}  // namespace

std::span<const Pass> registry() { return kPasses; }

const Pass* findPass(std::string_view name) {
  for (const Pass& p : kPasses)
    if (p.name == name) return &p;
  return nullptr;
}

std::optional<transform::LoweredKernel> PipelineState::loweredKernel(size_t k) const {
  if (k >= kernels.size() || !kernels[k].lowered || !kernels[k].plan || !kernels[k].schedule)
    return std::nullopt;
  const KernelState& ks = kernels[k];
  return transform::LoweredKernel{*ks.lowered, *ks.schedule, *ks.plan, ks.sync};
}

PipelineState PipelineState::forkAfterFrontEnd(PassOptions newOptions) const {
  PipelineState fork(file, target, std::move(newOptions));
  fork.program = program;
  fork.analyses = analyses;
  fork.kernels.assign(numKernels(), {});
  return fork;
}

}  // namespace tilesched::pass
