// `run --compare`: every schedule mode of one kernel file, side by side (see Compare.h).
#include "driver/Compare.h"

#include <fstream>
#include <optional>
#include <sstream>

#include <fmt/format.h>

#include "pass/PassManager.h"
#include "pipeline/Pipelines.h"
#include "report/RunReport.h"

namespace tilesched::driver {

using nlohmann::json;

namespace {

std::string firstError(const DiagnosticEngine& diags) {
  for (const auto& d : diags.all())
    if (d.severity == Severity::Error) return d.message;
  return "compile error";
}

std::string percent(double v) { return fmt::format("{:.1f}%", 100.0 * v); }

}  // namespace

const CompareRow* Comparison::row(const std::string& mode) const {
  for (const auto& r : rows)
    if (r.mode == mode) return &r;
  return nullptr;
}

bool Comparison::allPass() const {
  if (!compiled || rows.empty()) return false;
  for (const auto& r : rows)
    if (!r.pass) return false;
  return true;
}

Comparison compareSchedules(const CompareOptions& options, const Target& target) {
  Comparison c;
  c.file = options.file;
  std::ifstream in(options.file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  auto file = std::make_shared<SourceFile>(options.file, text.str());
  pass::PassOptions po;
  po.frontend.defines = options.defines;
  po.frontend.func = options.func;
  po.solver.solverTimeoutMs = options.solverTimeoutMs;
  po.run = options.run;
  po.run.recordTrace = false;
  pass::Instrumentation quiet;
  quiet.verifyEach = options.verifyEach;
  std::ostringstream noPrints;  // the comparison prints no IR
  pass::PipelineState front(file, target, po);
  pass::PassManager frontEnd(pipeline::frontEnd(), quiet, noPrints, options.file);
  bool compiled = frontEnd.run(front);
  c.frontendMs = frontEnd.totalMs();
  c.diagnostics = front.diags.renderAll();
  if (!compiled || front.numKernels() == 0) return c;
  c.compiled = true;
  const ir::Program& program = *front.program;
  // One name per prim_func, however many launches it has.
  for (const auto& k : program.kernels)
    if (k.launch == 0)
      c.kernel +=
          (c.kernel.empty() ? "" : ", ") + (k.factory.empty() ? k.primFuncName() : k.factory);
  std::vector<analysis::FillDrain> fillDrain;
  for (const auto& a : *front.analyses) fillDrain.push_back(analysis::computeFillDrain(a, target));

  for (const char* mode : kCompareModes) {
    CompareRow row;
    row.mode = mode;
    // Every kernel is lowered before any runs (as in `run`): a mode that does
    // not compile runs nothing.
    pass::PassOptions modeOptions = po;
    modeOptions.rule = pass::scheduleRuleOf(mode);
    pass::PipelineState state = front.forkAfterFrontEnd(modeOptions);
    pass::PassManager passes(pipeline::afterFrontEnd(mode), quiet, noPrints, options.file);
    row.compiled = passes.run(state);
    row.compileMs = passes.totalMs() - passes.msOf("simulate");
    if (!row.compiled) row.error = firstError(state.diags);
    // The lowering's warnings (e.g. replaced hand-written flags), once: auto's.
    if (row.compiled && std::string_view(mode) == "auto") c.diagnostics += state.diags.renderAll();
    for (size_t ki = 0; row.compiled && ki < state.numKernels(); ++ki) {
      const auto& plan = state.kernels[ki].plan;
      if (plan)
        for (const auto& sl : plan->storages)
          if (sl.buffer && sl.storage->scope != MemScope::Global)
            row.versions.push_back({sl.buffer->name, sl.versions});
      const auto& sched = state.kernels[ki].schedule;
      if (sched && std::string_view(mode) == "auto")
        for (const auto& ls : sched->lists) {
          row.solveMs += ls.solveMs;
          if (ls.loop)
            row.loops.push_back({ls.loop->var->name, ls.loop->loc.line, ls.ii, ls.iiLowerBound,
                                 ls.provenOptimal, ls.fallback});
        }
    }
    const sim::RunRefusal& refusal = state.refusal;
    const auto& runs = state.runs;
    if (row.compiled && !runs) row.error = refusal.message();
    row.pass = runs.has_value();
    for (size_t ki = 0; runs && ki < runs->launches.size(); ++ki) {
      const sim::KernelRun& run = runs->launches[ki];
      const sim::SimResult& r = run.sim;
      row.pass = row.pass && run.ok();
      if (!run.ok() && row.error.empty()) {
        static const char* kKinds[] = {"flag error", "deadlock", "capacity exceeded",
                                       "run-time error"};
        row.error = !r.issues.empty()    ? fmt::format("{}: {}", kKinds[r.issues.front().kind],
                                                       r.issues.front().message)
                    : !r.races.empty()   ? fmt::format("{} race(s)", r.races.size())
                    : run.referenceError ? "reference run: " + run.referenceError->message
                                         : "outputs differ from the reference";
      }
      row.lowerBound += r.lowerBound;
      row.fillDrainBound += report::fillDrainLowerBound(r, fillDrain[ki]);
      row.flagStall += r.flagStall;
      for (size_t p = 0; p < kNumPipes; ++p) row.busy[p] += r.busy[p];
    }
    if (runs) row.cycles = runs->cycles;
    if (row.cycles > 0) {
      row.efficiency = static_cast<double>(row.lowerBound) / static_cast<double>(row.cycles);
      row.fillDrainEfficiency =
          static_cast<double>(row.fillDrainBound) / static_cast<double>(row.cycles);
    }
    Pipe busiest = Pipe::S;
    int64_t most = 0;
    for (Pipe p : kAllPipes)
      if (row.busy[pipeIndex(p)] > most) most = row.busy[pipeIndex(p)], busiest = p;
    row.bottleneck = std::string(pipeName(busiest));
    c.rows.push_back(std::move(row));
  }
  return c;
}

namespace {

std::string versionsText(const CompareRow& r) {
  if (r.mode == "serial") return "all 1";
  std::string s;
  for (const auto& [name, n] : r.versions)
    s += fmt::format("{}{} {}", s.empty() ? "" : ", ", name, n);
  return s.empty() ? "-" : s;
}

std::string loopsText(const CompareRow& r) {
  std::string s;
  for (const auto& l : r.loops)
    s += fmt::format("{}{} {}/{}{}", s.empty() ? "" : ", ", l.var, l.ii, l.iiLowerBound,
                     l.fallback ? " (fallback)" : "");
  return s.empty() ? "-" : s;
}

std::optional<double> autoSpeedup(const Comparison& c, const CompareRow& r) {
  const CompareRow* a = c.row("auto");
  if (!a || !a->compiled || a->cycles == 0 || !r.compiled || r.cycles == 0) return std::nullopt;
  return static_cast<double>(r.cycles) / static_cast<double>(a->cycles);
}

}  // namespace

std::string renderComparison(const Comparison& c) {
  std::string out = fmt::format("compare {} ({}) — auto, none, double, serial\n", c.kernel, c.file);
  out +=
      fmt::format("  {:<7} {:<6} {:>10} {:>10} {:>7} {:>10} {:>7} {:>7} {:>9} {:>9}  {}  |  {}\n",
                  "mode", "result", "cycles", "bound", "eff", "bound+f/d", "eff f/d", "auto x",
                  "compile", "solve", "II/bound", "versions");
  for (const auto& r : c.rows) {
    if (!r.compiled) {
      out += fmt::format(
          "  {:<7} {:<6} {:>10} {:>10} {:>7} {:>10} {:>7} {:>7} {:>7.1f}ms {:>9}  "
          "does not compile: {}\n",
          r.mode, "FAIL", "-", "-", "-", "-", "-", "-", r.compileMs, "-", r.error);
      continue;
    }
    auto sp = autoSpeedup(c, r);
    out += fmt::format(
        "  {:<7} {:<6} {:>10} {:>10} {:>7} {:>10} {:>7} {:>7} {:>7.1f}ms {:>7.1f}ms  "
        "{}  |  {}{}\n",
        r.mode, r.pass ? "PASS" : "FAIL", r.cycles, r.lowerBound, percent(r.efficiency),
        r.fillDrainBound, percent(r.fillDrainEfficiency), sp ? fmt::format("{:.2f}", *sp) : "-",
        r.compileMs, r.solveMs, loopsText(r), versionsText(r),
        r.error.empty() ? "" : "  (" + r.error + ")");
  }
  out += fmt::format(
      "  (bound: busiest pipe ({}); bound+f/d: plus the shortest fill and drain; auto x: the "
      "mode's cycles / auto's; front end and analyses {:.1f} ms)\n",
      c.row("auto") ? c.row("auto")->bottleneck : "-", c.frontendMs);
  return out;
}

json comparisonJson(const Comparison& c) {
  json modes = json::array();
  for (const auto& r : c.rows) {
    json versions = json::object();
    for (const auto& [name, n] : r.versions) versions[name] = n;
    json loops = json::array();
    for (const auto& l : r.loops)
      loops.push_back({{"var", l.var},
                       {"line", l.line},
                       {"ii", l.ii},
                       {"ii_lower_bound", l.iiLowerBound},
                       {"proven_optimal", l.provenOptimal},
                       {"fallback", l.fallback}});
    auto sp = autoSpeedup(c, r);
    modes.push_back({{"schedule", r.mode},
                     {"compiled", r.compiled},
                     {"pass", r.pass},
                     {"error", r.error.empty() ? json(nullptr) : json(r.error)},
                     {"cycles", r.compiled ? json(r.cycles) : json(nullptr)},
                     {"lower_bound", r.lowerBound},
                     {"efficiency", r.efficiency},
                     {"fill_drain_bound", r.fillDrainBound},
                     {"fill_drain_efficiency", r.fillDrainEfficiency},
                     {"bottleneck", r.bottleneck},
                     {"flag_stall", r.flagStall},
                     {"versions", versions},
                     {"loops", loops},
                     {"compile_ms", r.compileMs},
                     {"solve_ms", r.solveMs},
                     {"auto_speedup", sp ? json(*sp) : json(nullptr)}});
  }
  return {{"file", c.file},      {"kernel", c.kernel},          {"compiled", c.compiled},
          {"pass", c.allPass()}, {"frontend_ms", c.frontendMs}, {"modes", modes}};
}

}  // namespace tilesched::driver
