// `tilesched run` (see RunCommand.h).
#include "driver/RunCommand.h"
#include "driver/ProgressLine.h"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>

#include <unistd.h>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "Version.h"
#include "analysis/FillDrain.h"
#include "driver/Compare.h"
#include "driver/Driver.h"
#include "frontend/Elaborator.h"
#include "ir/IROperator.h"
#include "ir/Printer.h"
#include "ir/Verifier.h"
#include "pipeline/Pipelines.h"
#include "report/ExplainReport.h"
#include "report/Report.h"
#include "report/RunReport.h"
#include "schedule/Memory.h"
#include "schedule/Schedule.h"
#include "schedule/Scheduler.h"
#include "sim/CrossCoreFlags.h"
#include "sim/Run.h"
#include "sim/Trace.h"
#include "target/Target.h"
#include "transform/Lowering.h"
#include "transform/SerialLowering.h"

namespace tilesched::driver {

using nlohmann::json;
using report::KernelOutcome;

namespace {

int usage(std::ostream& err, const std::string& msg) {
  err << "tilesched: error: " << msg << "\n";
  return kExitUsage;
}

// Whether `path` can be written (it is writable, or it does not exist and its
// directory is writable), checked without creating it, so a bad output path
// is a usage error before the simulation rather than after it.
bool canWrite(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(path, ec)) return false;
  if (fs::exists(path, ec)) return ::access(path.c_str(), W_OK) == 0;
  fs::path dir = fs::path(path).parent_path();
  if (dir.empty()) dir = ".";
  return fs::is_directory(dir, ec) && ::access(dir.c_str(), W_OK) == 0;
}

std::string percent(double v) { return fmt::format("{:.1f}%", 100.0 * v); }

// ------------------------------------------------------------ options

bool isLoweredSchedule(const std::string& s) { return s == "auto" || s == "none" || s == "double"; }
bool isCompare(const RunCommandOptions& o) { return o.compare || o.schedule == "all"; }

// Checks the options that need no kernel; returns a usage message or "".
std::string checkOptions(const RunCommandOptions& o, sim::RunOptions& ro) {
  if (!isLoweredSchedule(o.schedule) && o.schedule != "serial" && o.schedule != "as-written" &&
      o.schedule != "all")
    return fmt::format(
        "unknown --schedule '{}'; use auto, none, double, serial or as-written (or all: --compare)",
        o.schedule);
  if (isCompare(o)) {
    if (o.compare && o.schedule != "auto" && o.schedule != "all")
      return fmt::format("--compare runs every schedule; drop --schedule {}", o.schedule);
    for (const auto& [flag, set] : {std::pair<const char*, bool>{"--trace", !o.tracePath.empty()},
                                    {"--timeline", !o.timelinePath.empty()},
                                    {"--timeline-all-blocks", o.timelineAllBlocks},
                                    {"--output-dir", !o.outputDir.empty()},
                                    {"--emit", !o.emit.empty()},
                                    {"--print-after", !o.passes.printAfter.empty()},
                                    {"--print-after-change", o.passes.printAfterChange},
                                    {"--time-passes", o.passes.timePasses},
                                    {"--stats", o.passes.stats}})
      if (set)
        return fmt::format("{} takes one schedule; it cannot be combined with --compare", flag);
  }
  if (!o.scheduleFile.empty() && (isCompare(o) || o.schedule != "auto"))
    return fmt::format("--schedule-file gives the schedule to run; drop {}",
                       isCompare(o) ? "--compare" : "--schedule " + o.schedule);
  if (!o.emit.empty() && o.emit != "lowered")
    return fmt::format("unknown --emit '{}' for run; use lowered", o.emit);
  if (o.timelineAllBlocks && o.timelinePath.empty())
    return "--timeline-all-blocks changes the --timeline picture; give --timeline FILE.svg too";
  if (std::string msg = pass::checkPrintAfter(o.passes.printAfter, pipeline::run(o.schedule));
      !msg.empty())
    return msg;
  if (o.cores < 0) return "--cores must be 1 or more (default: one core per block)";
  // Output paths are checked before the (possibly long) simulation, so a typo
  // costs nothing and never hides the run's own exit status.
  for (const auto& [flag, path] :
       {std::pair<const char*, const std::string*>{"--trace", &o.tracePath},
        {"--timeline", &o.timelinePath},
        {"--report", &o.reportPath}})
    if (!path->empty() && !canWrite(*path))
      return fmt::format("cannot write {} '{}'", flag + 2, *path);
  if (!o.outputDir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(o.outputDir, ec);
    if (ec || !std::filesystem::is_directory(o.outputDir, ec) ||
        ::access(o.outputDir.c_str(), W_OK) != 0)
      return fmt::format("cannot write --output-dir '{}'", o.outputDir);
  }
  ro.seed = o.seed;
  ro.cores = o.cores;
  ro.recordTrace = !o.tracePath.empty() || !o.timelinePath.empty();
  for (const auto& in : o.inputs) {
    auto eq = in.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == in.size())
      return fmt::format("--input expects NAME=file.npy or NAME=number, got '{}'", in);
    ro.inputs[in.substr(0, eq)] = in.substr(eq + 1);
  }
  return "";
}

// ------------------------------------------------------------ rendering

// Whether the global element statement `s` touches is found through a value
// read at run time (`out[idx[i]] = ...`, a T.alloc_var loaded from a tensor):
// then which elements two blocks touch depends on the inputs.
bool addressReadsMemory(const ir::StmtNode* s) {
  if (!s) return false;
  if (const auto* st = dynamic_cast<const ir::StoreStmt*>(s)) {
    for (const auto& i : st->indices)
      if (ir::containsLoad(i)) return true;
    return false;
  }
  if (const auto* c = dynamic_cast<const ir::CopyStmt*>(s)) {
    for (const ir::Region* r : {&c->src, &c->dst})
      for (const auto& range : r->ranges)
        if (ir::containsLoad(range.min)) return true;
  }
  return false;
}

// Run-time problems of every kernel as diagnostics anchored in the kernel file.
void runDiagnostics(const std::vector<KernelOutcome>& outcomes, DiagnosticEngine& runDiags) {
  for (const auto& oc : outcomes) {
    const auto& r = oc.run.sim;
    const std::vector<std::string> storages = sim::storageNames(oc.lowered);  // by race.storage
    for (const auto& race : r.races) {
      // In a core group a pipe is named with its core: "AIV 1 MTE3".
      bool group = oc.lowered.manualCores.has_value();
      auto pipeOf = [group](const sim::AccessOwner& o) {
        return group ? sim::coreName(o.core) + " " + std::string(pipeName(o.pipe))
                     : std::string(pipeName(o.pipe));
      };
      auto describe = [&](const sim::AccessOwner& o, bool w) {
        return fmt::format("{} by {} ({})", w ? "written" : "read",
                           o.stmt ? sim::instructionName(o.stmt) : "?", pipeOf(o));
      };
      if (race.betweenBlocks) {
        auto access = [&](const sim::AccessOwner& o, bool w, bool atomic) {
          return fmt::format("{} by {} ({}) in block {}",
                             atomic ? "atomically accumulated"
                             : w    ? "written"
                                    : "read",
                             o.stmt ? sim::instructionName(o.stmt) : "?", pipeName(o.pipe),
                             o.block);
        };
        auto& d = runDiags.error(
            race.second.stmt ? race.second.stmt->loc : SourceLoc{},
            fmt::format("race between blocks {} and {} on global tensor '{}' (element {}, bytes "
                        "[{}, {})): {} here and {} at line {}; blocks run concurrently on "
                        "different cores with no order between them{}{}",
                        race.first.block, race.second.block,
                        storages[static_cast<size_t>(race.storage)], race.element, race.lo, race.hi,
                        access(race.second, race.secondWrites, race.secondAtomic),
                        access(race.first, race.firstWrites, race.firstAtomic),
                        race.first.stmt ? race.first.stmt->loc.line : 0,
                        race.firstAtomic || race.secondAtomic
                            ? " (only atomic accumulates of one kind commute)"
                            : "",
                        race.occurrences > 1 ? fmt::format(" ({} times)", race.occurrences) : ""));
        if (race.first.stmt)
          d.notes.push_back(
              {race.first.stmt->loc, fmt::format("the other access ({}, block {})",
                                                 pipeName(race.first.pipe), race.first.block)});
        if (addressReadsMemory(race.first.stmt) || addressReadsMemory(race.second.stmt))
          d.notes.push_back(
              {race.second.stmt ? race.second.stmt->loc : SourceLoc{},
               "the element is found through a value read at run time, so which elements the "
               "blocks touch depends on the inputs: inputs not given with --input are random "
               "(--seed), and may repeat where the kernel expects distinct values (a permutation, "
               "as torch.randperm makes); pass the kernel's own with --input NAME=FILE.npy"});
        continue;
      }
      auto& d = runDiags.error(
          race.second.stmt ? race.second.stmt->loc : SourceLoc{},
          fmt::format("race on '{}' bytes [{}, {}): {} here and {} at line {}, with no pipe order, "
                      "barrier or flag chain "
                      "between them{}",
                      storages[static_cast<size_t>(race.storage)], race.lo, race.hi,
                      describe(race.second, race.secondWrites),
                      describe(race.first, race.firstWrites),
                      race.first.stmt ? race.first.stmt->loc.line : 0,
                      race.occurrences > 1 ? fmt::format(" ({} times)", race.occurrences) : ""));
      if (race.first.stmt)
        d.notes.push_back(
            {race.first.stmt->loc, fmt::format("the other access ({})", pipeOf(race.first))});
    }
    for (const auto& i : r.issues) {
      std::string prefix = i.kind == sim::SimIssue::Capacity  ? "capacity exceeded: "
                           : i.kind == sim::SimIssue::Runtime ? "run-time error: "
                                                              : "";
      auto& d = runDiags.error(i.loc, prefix + i.message);
      for (const auto& n : i.notes) d.notes.push_back(n);
    }
    if (oc.run.referenceError)
      runDiags.error(oc.run.referenceError->loc,
                     "run-time error in the reference run: " + oc.run.referenceError->message);
  }
}

std::string modeName(const transform::StorageLowering& sl) {
  return sl.mode ? std::string(ir::versionModeName(*sl.mode)) : "-";
}

// The lowering's decisions: versions, mode and source per storage, and the
// synchronisation per hard event.
void renderLowering(const transform::LoweredKernel& lk, std::ostream& out) {
  for (const auto& ls : lk.schedule.lists) {
    if (!ls.loop) continue;
    out << fmt::format("  loop {} (line {}): II {} (lower bound {}{}{}), max stage {}{}\n",
                       ls.loop->var->name, ls.loop->loc.line, ls.ii, ls.iiLowerBound,
                       ls.provenOptimal ? ", proven optimal" : "",
                       ls.fallback ? ", list-schedule fallback" : "", ls.maxStage,
                       ls.enableOffset ? ", enable_offset" : "");
  }
  // Columns as wide as their longest entry (`local.fragment`, long names).
  size_t nameWidth = 11, scopeWidth = 11;
  for (const auto& sl : lk.plan.storages) {
    if (!sl.buffer || sl.storage->scope == MemScope::Global) continue;
    nameWidth = std::max(nameWidth, sl.buffer->name.size());
    scopeWidth = std::max(scopeWidth, std::string(memScopeName(sl.storage->scope)).size());
  }
  out << fmt::format("  {:<{}} {:<{}} versions  mode       source\n", "buffer", nameWidth, "scope",
                     scopeWidth);
  for (const auto& sl : lk.plan.storages) {
    if (!sl.buffer || sl.storage->scope == MemScope::Global) continue;
    out << fmt::format("  {:<{}} {:<{}} {:>8}  {:<10} {}\n", sl.buffer->name, nameWidth,
                       memScopeName(sl.storage->scope), scopeWidth, sl.versions, modeName(sl),
                       schedule::versionSourceName(sl.source));
  }
  std::string ids;
  for (const auto& [ev, n] : lk.sync.eventIds)
    ids += fmt::format("{}{} {}", ids.empty() ? "" : ", ", ev, n);
  out << fmt::format(
      "  sync: {} set_flag, {} wait_flag, {} pipe_barrier; event ids per hard event: {}\n",
      lk.sync.setFlag, lk.sync.waitFlag, lk.sync.pipeBarrier, ids.empty() ? "none" : ids);
}

void renderHuman(const RunCommandOptions& o, const Target& target,
                 const std::vector<KernelOutcome>& outcomes, std::ostream& out) {
  for (const auto& oc : outcomes) {
    const auto& k = *oc.kernel;
    const auto& r = oc.run.sim;
    out << fmt::format("run {} ({}) — schedule {}, target {}\n", k.displayName(), o.file,
                       o.schedule, target.name);
    if (k.numLaunches > 1)
      out << fmt::format(
          "  launch {} of {} of '{}': starts at cycle {}{}\n", k.launch, k.numLaunches,
          k.primFuncName(), oc.run.startCycle,
          k.launch > 0 ? ", after every block of the previous launch, on its global memory" : "");
    if (oc.lowering) renderLowering(*oc.lowering, out);
    if (k.manualCores)
      out << fmt::format(
          "  cores: the core group runs it as written: the AIC runs 'with T.Cube()', {} "
          "'with T.Vector()', each core with its own scalar unit, pipes and UB\n",
          k.manualCores->vectorCores == 1 ? "AIV 0 runs" : "AIV 0 and AIV 1 each run");
    else if (oc.mixedCores)
      out << fmt::format(
          "  cores: cube and vector tasks in one kernel, run here on one core with every pipe "
          "({}; `tilesched explain` shows each task's core)\n",
          k.vectorCores == 1 ? "the AIC and AIV 0 share one scalar unit and one MTE2 here"
                             : "the AIC + 2 AIV core group is not simulated yet");
    const auto& sampled = oc.run.sampledBlocks;
    if (!sampled.empty())
      out << fmt::format(
          "  sampled run: the global tensors need {} bytes, beyond the simulator's 1 GiB, so only "
          "block{} {} of {} ran (reference and simulation), on global memory filled where they "
          "touch it; the figures and checks below are for {}\n",
          oc.run.globalBytes, sampled.size() == 1 ? "" : "s", fmt::join(sampled, " and "), k.grid,
          sampled.size() == 1 ? "that block" : "those blocks");
    std::string blocksRun = sampled.empty()
                                ? fmt::format("{} block{}", k.grid, k.grid == 1 ? "" : "s")
                                : fmt::format("{} of {} blocks", sampled.size(), k.grid);
    Pipe bottleneck = report::bottleneckPipe(r);
    if (r.aborted) {
      // A run-time error stopped the simulation: no cycle figure means anything.
      out << fmt::format(
          "  {} on {} core{}: the run stopped at a run-time error (above); no "
          "cycles to report\n",
          blocksRun, r.cores, r.cores == 1 ? "" : "s");
      out << fmt::format(
          "  races {}, flag errors {}, capacity errors {}, run-time errors {} -> {}\n",
          r.races.size(), r.flagErrors(), r.count(sim::SimIssue::Capacity),
          r.count(sim::SimIssue::Runtime) + (oc.run.referenceError ? 1 : 0),
          oc.run.ok() ? "PASS" : "FAIL");
      continue;
    }
    out << fmt::format(
        "  {} on {} core{} ({} wave{}): {} cycles, lower bound {} ({}), efficiency {}\n", blocksRun,
        r.cores, r.cores == 1 ? "" : "s", r.waves, r.waves == 1 ? "" : "s", r.cycles, r.lowerBound,
        pipeName(bottleneck), percent(r.efficiency));
    int64_t fillDrainBound = report::fillDrainLowerBound(r, oc.fillDrain);
    out << fmt::format(
        "  with the shortest fill and drain: bound {}, efficiency {}\n", fillDrainBound,
        percent(r.cycles ? static_cast<double>(fillDrainBound) / static_cast<double>(r.cycles)
                         : 0.0));
    out << "  pipe       busy    util  instrs  flag stall  barrier stall\n";
    for (Pipe p : kAllPipes) {
      int64_t instrs = 0, stall = 0, barrier = 0;
      for (const auto& b : r.blocks) {
        instrs += b.pipes[pipeIndex(p)].instructions;
        stall += b.pipes[pipeIndex(p)].flagStall;
        barrier += b.pipes[pipeIndex(p)].barrierStall;
      }
      if (r.busy[pipeIndex(p)] == 0 && instrs == 0) continue;
      double util =
          r.cycles ? static_cast<double>(r.busy[pipeIndex(p)]) / static_cast<double>(r.cycles) : 0;
      out << fmt::format("  {:<5} {:>9} {:>7} {:>7} {:>11} {:>14}\n", pipeName(p),
                         r.busy[pipeIndex(p)], percent(util), instrs, stall, barrier);
    }
    out << fmt::format(
        "  (busy and util: the slowest block of each wave; instrs and stalls: summed over {})\n",
        sampled.empty()
            ? (k.grid == 1 ? std::string("the one block") : fmt::format("all {} blocks", k.grid))
            : fmt::format("the {} blocks that ran", sampled.size()));
    for (const auto& t : oc.run.tensors) {
      if (!t.written && t.mismatches == 0) continue;
      std::string compared =
          t.compared == t.elements
              ? fmt::format("{} elements", t.elements)
              : fmt::format("{} of {} elements, those in the pages the blocks touched", t.compared,
                            t.elements);
      if (t.mismatches == 0) {
        out << fmt::format("  output {}: matches the reference bit for bit ({})\n", t.name,
                           compared);
        continue;
      }
      out << fmt::format("  output {}: {} of {} differ from the reference\n", t.name, t.mismatches,
                         compared);
      for (const auto& m : t.firstMismatches) out << "    " << m << "\n";
    }
    out << fmt::format("  races {}, flag errors {}, capacity errors {}, run-time errors {} -> {}\n",
                       r.races.size(), r.flagErrors(), r.count(sim::SimIssue::Capacity),
                       r.count(sim::SimIssue::Runtime) + (oc.run.referenceError ? 1 : 0),
                       oc.run.ok() ? "PASS" : "FAIL");
    if (k.numLaunches > 1 && k.launch + 1 == k.numLaunches)
      out << fmt::format("  '{}': {} launches in order, {} cycles in total\n", k.primFuncName(),
                         k.numLaunches, oc.run.startCycle + r.cycles);
  }
}

// Writes --trace, --timeline and --output-dir; returns a usage message or "".
std::string writeFiles(const RunCommandOptions& o, const Target& target,
                       const std::vector<KernelOutcome>& outcomes) {
  std::vector<sim::TraceInput> traces;
  for (const auto& oc : outcomes) {
    traces.push_back({oc.kernel->displayName(), &oc.run.sim, o.file, oc.run.startCycle, {}});
    // The lowered loops keep their variable and line, so the trace finds them.
    if (oc.lowering)
      for (const auto& ls : oc.lowering->schedule.lists)
        if (ls.loop)
          traces.back().loopIIs.push_back({ls.loop->var->name, ls.loop->loc.line, ls.ii});
  }
  if (!o.tracePath.empty()) {
    std::ofstream f(o.tracePath);
    if (!f) return fmt::format("cannot write trace '{}'", o.tracePath);
    sim::writeChromeTrace(f, traces);
  }
  if (!o.timelinePath.empty()) {
    std::ofstream f(o.timelinePath);
    if (!f) return fmt::format("cannot write timeline '{}'", o.timelinePath);
    // The title names the first prim_func: all its launches, one after the other.
    const auto& first = outcomes.front();
    int64_t cycles = first.run.sim.cycles;
    std::string launches;
    for (size_t i = 1; i < outcomes.size() && outcomes[i].kernel->launch > 0; ++i)
      cycles = outcomes[i].run.startCycle + outcomes[i].run.sim.cycles;
    if (first.kernel->numLaunches > 1)
      launches = fmt::format("{} launches, ", first.kernel->numLaunches);
    sim::TimelineOptions to;
    to.allBlocks = o.timelineAllBlocks;
    sim::writeTimelineSvg(
        f, traces,
        first.kernel->numLaunches > 1
            ? fmt::format("{} — schedule {}, {} — {}{} cycles",
                          std::filesystem::path(o.file).filename().string(), o.schedule,
                          target.name, launches, cycles)
            : fmt::format("{} — schedule {}, {} — {} cycles, efficiency {}",
                          std::filesystem::path(o.file).filename().string(), o.schedule,
                          target.name, cycles, percent(first.run.sim.efficiency)),
        to);
  }
  if (!o.outputDir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(o.outputDir, ec);
    // One file per tensor that any launch of a prim_func wrote, holding the
    // value after its last launch; prefixed by the prim_func when the file
    // compiled several.
    size_t numFuncs = 0;
    for (const auto& oc : outcomes) numFuncs += oc.kernel->launch == 0;
    for (size_t last = 0; last < outcomes.size(); ++last) {
      const auto& oc = outcomes[last];
      bool endsFunc = last + 1 == outcomes.size() || outcomes[last + 1].kernel->launch == 0;
      if (!endsFunc) continue;
      if (!oc.run.sampledBlocks.empty())
        return fmt::format(
            "--output-dir: '{}' ran sampled (its global tensors exceed the simulator's 1 GiB), so "
            "there are no whole output tensors to write; use a smaller shape to get them",
            oc.kernel->displayName());
      size_t first = last - static_cast<size_t>(oc.kernel->launch);
      std::map<std::string, const sim::NpyArray*> written;
      for (size_t i = first; i <= last; ++i)
        for (const auto& [name, arr] : outcomes[i].run.finalTensors) written[name] = &arr;
      std::string prefix =
          numFuncs > 1
              ? (oc.kernel->factory.empty() ? oc.kernel->primFuncName() : oc.kernel->factory) + "."
              : "";
      for (const auto& [name, arr] : written) {
        sim::NpyArray final = *arr;
        final.data = oc.run.simulatedGlobals.at(name);
        std::string error;
        if (!sim::writeNpy((std::filesystem::path(o.outputDir) / (prefix + name + ".npy")).string(),
                           final, error))
          return error;
      }
    }
  }
  return "";
}

json runReport(const RunCommandOptions& o, const ir::Program& program, const Target& target,
               const DiagnosticEngine& diags, const DiagnosticEngine& runDiags,
               const std::vector<analysis::KernelAnalysis>& analyses,
               const std::vector<KernelOutcome>& outcomes) {
  json report = report::compileReport(&program, o.file, &target, diags, &analyses);
  std::vector<json> sims;
  for (size_t i = 0; i < outcomes.size(); ++i) {
    const auto& oc = outcomes[i];
    if (oc.lowering) {
      report::annotateLowering(report["kernels"][i], *oc.kernel, *oc.lowering, target);
      report::annotateExplanations(report["kernels"][i], *oc.kernel, analyses[i],
                                   oc.lowering->schedule, target);
    }
    const std::vector<std::string> storages = sim::storageNames(oc.lowered);  // by race.storage
    auto describe = [](const sim::AccessOwner& a) {
      return a.stmt ? sim::instructionName(a.stmt) : std::string("?");
    };
    json s = report::simulationJson(oc, o.schedule, o.file, describe);
    for (size_t ri = 0; ri < oc.run.sim.races.size(); ++ri)
      s["race_reports"][ri]["storage"] =
          storages[static_cast<size_t>(oc.run.sim.races[ri].storage)];
    report["kernels"][i]["simulation"] = s;
    sims.push_back(s);
  }
  report["simulation"] = report::combinedSimulation(sims);
  json all = report::diagnosticsReport(diags);
  for (auto& d : report::diagnosticsReport(runDiags)) all.push_back(d);
  report["diagnostics"] = all;
  return report;
}

// --compare / --schedule all: every mode side by side; exit 3 if any mode fails.
int runCompare(const RunCommandOptions& o, const sim::RunOptions& ro,
               const frontend::FrontendOptions& fe, const Target& target, std::ostream& out,
               std::ostream& err) {
  CompareOptions co{o.file, fe.defines, fe.func, o.solverTimeoutMs, ro, o.passes.verifyEach};
  Comparison c = compareSchedules(co, target);
  err << c.diagnostics;
  if (!c.compiled) {
    err << "compile errors: no schedule was run.\n";
    return kExitCompileError;
  }
  for (const auto& r : c.rows)
    if (r.mode == std::string("auto") && !r.compiled)
      err << fmt::format("{}: error: schedule auto: {}\n", o.file, r.error);
  out << renderComparison(c);
  if (!o.reportPath.empty()) {
    json report = {{"schema_version", report::kReportSchemaVersion},
                   {"tool", "tilesched"},
                   {"version", TILESCHED_VERSION},
                   {"target", target.name},
                   {"comparison", comparisonJson(c)}};
    std::ofstream f(o.reportPath);
    if (!f) return usage(err, fmt::format("cannot write report '{}'", o.reportPath));
    f << report.dump(2) << "\n";
    out << fmt::format("  report written to {}\n", o.reportPath);
  }
  return c.allPass() ? kExitOk : kExitRunFailed;
}

}  // namespace

int runRunCommand(const RunCommandOptions& o, std::ostream& out, std::ostream& err) {
  sim::RunOptions ro;
  if (std::string msg = checkOptions(o, ro); !msg.empty()) return usage(err, msg);
  ro.progress = progressLine(err);
  OpenedKernel kernel;
  if (std::string msg = openKernel(o.file, o.defines, o.func, o.target, kernel); !msg.empty())
    return usage(err, msg);
  const Target& target = *kernel.target;
  if (isCompare(o)) return runCompare(o, ro, kernel.frontend, target, out, err);

  pass::PassOptions po;
  po.frontend = kernel.frontend;
  po.rule = pass::scheduleRuleOf(o.schedule);
  if (!o.scheduleFile.empty()) {
    po.rule = pass::ScheduleRule::File;
    po.scheduleFile = o.scheduleFile;
    if (std::string error; !readKernelFile(o.scheduleFile, po.scheduleText, error))
      return usage(err, error);
  }
  po.solver.solverTimeoutMs = o.solverTimeoutMs;
  po.run = ro;
  pass::PipelineState state(kernel.file, target, po);
  const DiagnosticEngine& diags = state.diags;
  pass::PassManager passes(pipeline::run(o.schedule), o.passes, out, o.file);
  // The compile's warnings and the lowered kernels before the (possibly
  // long) simulation starts.
  bool shown = false;
  auto showCompile = [&](const pass::PipelineState& s) {
    if (shown) return;
    shown = true;
    err << diags.renderAll();
    if (o.emit != "lowered") return;
    // A file tilesched reads back (`run --schedule as-written`): the
    // dialect import once, then each lowered kernel.
    out << "import tilelang.language as T\n\n";
    for (size_t k = 0; k < s.numKernels(); ++k) out << ir::printKernel(s.kernelIR(k), o.file);
  };
  passes.setBeforePass([&](const pass::Pass& p, const pass::PipelineState& s) {
    if (p.name == "simulate") showCompile(s);
  });
  if (!passes.run(state)) {
    if (!shown) err << diags.renderAll();
    err << errorsGenerated(diags);
    // Scripts read the report's diagnostics: write it as `compile --report` does.
    if (!o.reportPath.empty()) {
      std::ofstream f(o.reportPath);
      json report =
          report::compileReport(state.program.get(), o.file, &target, diags, state.analyses.get());
      report["simulation"] = nullptr;
      if (f) f << report.dump(2) << "\n";
    }
    return kExitCompileError;
  }
  const ir::Program& program = *state.program;
  const std::vector<analysis::KernelAnalysis>& analyses = *state.analyses;
  std::vector<KernelOutcome> outcomes;
  for (size_t k = 0; k < state.numKernels(); ++k) {
    KernelOutcome oc{&state.sourceKernel(k),
                     state.kernelIR(k),
                     {},
                     {},
                     analysis::computeFillDrain(analyses[k], target)};
    if (isLoweredSchedule(o.schedule)) oc.lowering = state.loweredKernel(k);
    oc.mixedCores = analyses[k].mixedCores();
    outcomes.push_back(std::move(oc));
  }
  const sim::RunRefusal& refusal = state.refusal;
  auto& runs = state.runs;
  // The kernels were simulated and checked, the launches of a prim_func in order.
  if (!runs && !refusal.beyondLimits) return usage(err, refusal.message());
  if (!runs) {
    // Kernels beyond what the simulator holds stop before any memory is
    // allocated, at the grid, loop or buffer that is too large.
    DiagnosticEngine limitDiags(state.file);
    for (const auto& d : refusal.errors) limitDiags.error(d.loc, "cannot simulate: " + d.message);
    err << limitDiags.renderAll();
    err << errorsGenerated(limitDiags);
    return kExitRunFailed;
  }
  for (size_t i = 0; i < outcomes.size(); ++i) outcomes[i].run = std::move(runs->launches[i]);
  DiagnosticEngine runDiags(state.file);
  runDiagnostics(outcomes, runDiags);
  err << runDiags.renderAll();
  if (o.emit == "lowered") {
    // The summary after the lowered kernels stays a comment of that file.
    std::ostringstream summary;
    renderHuman(o, target, outcomes, summary);
    std::istringstream lines(summary.str());
    out << "\n";
    for (std::string line; std::getline(lines, line);) out << "# " << line << "\n";
  } else {
    renderHuman(o, target, outcomes, out);
  }
  out << passes.timesText();
  err << passes.statsText(state);
  if (std::string msg = writeFiles(o, target, outcomes); !msg.empty()) return usage(err, msg);
  if (!o.reportPath.empty()) {
    json report = runReport(o, program, target, diags, runDiags, analyses, outcomes);
    std::ofstream f(o.reportPath);
    if (!f) return usage(err, fmt::format("cannot write report '{}'", o.reportPath));
    f << report.dump(2) << "\n";
  }
  // Say where the files went, so a user finds them without re-reading the command.
  for (const auto& [what, path] :
       {std::pair<const char*, const std::string*>{"timeline", &o.timelinePath},
        {"trace", &o.tracePath},
        {"report", &o.reportPath},
        {"outputs", &o.outputDir}})
    if (!path->empty()) out << fmt::format("  {} written to {}\n", what, *path);
  bool allOk = true;
  for (const auto& oc : outcomes) allOk &= oc.run.ok();
  return allOk ? kExitOk : kExitRunFailed;
}

}  // namespace tilesched::driver
