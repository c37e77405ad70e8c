// `tilesched explain` (see ExplainCommand.h); the report's explanation fields are
// report/ExplainReport.cpp.
#include "driver/ExplainCommand.h"

#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "driver/Driver.h"
#include "frontend/Elaborator.h"
#include "ir/Printer.h"
#include "pipeline/Pipelines.h"
#include "schedule/Problem.h"
#include "schedule/Scheduler.h"

namespace tilesched::driver {

using nlohmann::json;
using namespace schedule;

namespace {

using schedule::depOf;
using schedule::depOn;
using schedule::depWhat;
using schedule::explanationUnit;

// `file`: the compiled file; a location in a module it imports names its own.
std::string at(const std::string& file, SourceLoc loc) {
  const std::string& path = loc.file ? loc.file->path() : file;
  return loc.valid() ? fmt::format("{}:{}:{}", path, loc.line, loc.col) : path;
}

std::string loopName(const ir::ForStmt* loop, const std::string& file) {
  return fmt::format("loop {} ({})", loop->var->name, at(file, loop->loc));
}

std::string unitLine(const LoopExplanation& e, int index, const std::string& file) {
  const analysis::Unit* u = explanationUnit(e, index);
  if (!u) return fmt::format("#{}", index);
  return fmt::format("#{} {} ({})", index, ir::printStmtFirstLine(u->stmt), at(file, u->loc));
}

}  // namespace

namespace {

std::string statusText(const LoopExplanation& e) {
  switch (e.status) {
    case SearchStatus::ProvenOptimal:
      return "proven optimal";
    case SearchStatus::Fallback:
      return "list-schedule fallback";
    case SearchStatus::TimedOut:
      return "not proven optimal: the solver's work budget ran out";
    case SearchStatus::NotProven:
      return "not proven optimal";
  }
  return "";
}

void printLoop(std::string& out, const LoopExplanation& e, const std::string& file) {
  out += fmt::format("{}: II {}, lower bound {}, {}\n", loopName(e.loop, file), e.ii, e.lowerBound,
                     statusText(e));
  if (!e.note.empty()) out += "  note: " + e.note + "\n";
  switch (e.kind) {
    case IIBoundKind::Resource:
      out += fmt::format("  bound by resource: pipe {} is busy {} cycles per iteration\n",
                         pipeName(*e.terms.resourcePipe), e.value);
      for (size_t k = 0; k < e.resourceUnits.size(); ++k)
        out += fmt::format("    {}, {} cycles\n", unitLine(e, e.resourceUnits[k], file),
                           e.resourceBusy[k]);
      break;
    case IIBoundKind::Recurrence:
      out += fmt::format(
          "  bound by recurrence: a cycle of latency {} over {} iteration{} needs II >= {}\n",
          e.cycleLatency, e.cycleDistance, e.cycleDistance == 1 ? "" : "s", e.value);
      for (const auto& edge : e.terms.criticalCycle) {
        const analysis::Dependency* d = depOf(e, edge);
        std::string on = depOn(d);
        out += fmt::format("    {}\n      -> #{} {}{}, latency {}, distance {}\n",
                           unitLine(e, edge.from, file), edge.to, depWhat(d),
                           on.empty() ? "" : " on " + on, edge.latency, edge.distance);
      }
      break;
    case IIBoundKind::Owner:
      if (!e.exclusion) break;
      out += fmt::format("  bound by owner exclusion on {}: forward {} + reverse {} = {} cycles\n",
                         e.exclusion->storage ? e.exclusion->storage->name : "?",
                         e.exclusionForward, e.exclusionReverse, e.value);
      out += "    " + unitLine(e, e.exclusion->a, file) + "\n";
      out += "    " + unitLine(e, e.exclusion->b, file) + "\n";
      break;
    case IIBoundKind::None:
      out += "  bound by nothing: no unit occupies a pipe\n";
      break;
  }
  out += fmt::format("  terms: resource {}, recurrence {}, owner exclusion {}\n", e.terms.resource,
                     e.terms.recurrence, e.terms.exclusion);
  if (e.ii > e.lowerBound)
    out += fmt::format("  the II is {} above its lower bound\n", e.ii - e.lowerBound);
}

std::string boundText(const StorageExplanation& e, const std::string& file) {
  if (!e.boundLoop)
    return fmt::format("at most {}: no loop around its owner has num_stages", e.bound);
  if (e.boundLoop == e.loop)
    return fmt::format("num_stages={} of loop {} allows {}", e.boundLoop->numStages,
                       e.boundLoop->var->name, e.bound);
  return fmt::format("num_stages={} of {} allows {}", e.boundLoop->numStages,
                     loopName(e.boundLoop, file), e.bound);
}

std::string whyText(const StorageExplanation& e, const std::string& file) {
  switch (e.reason) {
    case VersionReason::Annotation:
      return fmt::format("fixed by T.annotate_buffer_versions at {}", at(file, e.annotationLoc));
    case VersionReason::OptOut:
      return fmt::format("opted out ({{{}: 1}}) by T.annotate_buffer_versions at {}",
                         e.buffer ? e.buffer->name : "?", at(file, e.annotationLoc));
    case VersionReason::Manual:
      return fmt::format("manual ring by T.annotate_manual_multi_buffer at {}",
                         at(file, e.annotationLoc));
    case VersionReason::Ineligible:
      return "not eligible: " + e.ineligibleReason;
    case VersionReason::NumStages:
      return fmt::format(
          "capped by num_stages: {}; with more versions the II bound would drop from {} to {}",
          boundText(e, file), e.loopLowerBound, *e.iiBoundWithMoreVersions);
    case VersionReason::Capacity:
      return fmt::format(
          "capped by the capacity of '{}': {} versions would need {} bytes, capacity {} bytes "
          "({}); II bound {} at {} version{}, {} at {}",
          memScopeName(e.storage->scope), e.versions + 1, e.bytesWithOneMore, *e.capacity,
          boundText(e, file), *e.iiBoundAtCount, e.versions, e.versions == 1 ? "" : "s",
          *e.iiBoundAtBound, e.bound);
    case VersionReason::ScheduleNeeds:
      break;
    case VersionReason::Fill:
      return fmt::format(
          "used by the loop's first iterations: the schedule of {} needs {}, and the first "
          "iterations as the machine runs them (producers ahead of the steady state) finish "
          "sooner with {} ({})",
          e.loop ? loopName(e.loop, file) : "its loop", e.scheduleNeeds, e.versions,
          boundText(e, file));
  }
  if (!e.crossIteration)
    return "all the schedule needs: no dependency crosses iterations through it";
  return fmt::format("all the schedule needs: the schedule of {} needs exactly {} ({}){}",
                     e.loop ? loopName(e.loop, file) : "its loop", e.versions, boundText(e, file),
                     e.iiAboveBound ? "; the loop's II is above its bound, where more versions "
                                      "are not ruled out to help"
                                    : "");
}

}  // namespace

std::string printExplanation(const ir::Kernel& kernel, const KernelExplanation& e,
                             const std::string& file, const Target& target) {
  std::string out =
      fmt::format("# explain {} ({}, target {})\n",
                  kernel.factory.empty() ? kernel.name : kernel.factory, file, target.name);
  for (const auto& l : e.loops) printLoop(out, l, file);
  out += "buffers:\n";
  size_t width = 4, locWidth = 4;
  for (const auto& s : e.storages) {
    width = std::max(width, s.storage->name.size());
    locWidth = std::max(locWidth, at(file, s.storage->loc).size());
  }
  for (const auto& s : e.storages)
    out += fmt::format("  {:<{}}  {:<{}}  {} version{}: {}\n", s.storage->name, width,
                       at(file, s.storage->loc), locWidth, s.versions, s.versions == 1 ? "" : "s",
                       whyText(s, file));
  return out;
}

// ------------------------------------------------------------ command

int scheduleFile(const ExplainOptions& o, std::ostream& out, std::ostream& err, ScheduledFile& r) {
  if (std::string msg = pass::checkPrintAfter(o.passes.printAfter, pipeline::compile());
      !msg.empty()) {
    err << "tilesched: error: " << msg << "\n";
    return kExitUsage;
  }
  OpenedKernel kernel;
  if (std::string msg = openKernel(o.file, o.defines, o.func, o.target, kernel); !msg.empty()) {
    err << "tilesched: error: " << msg << "\n";
    return kExitUsage;
  }
  r.target = std::move(kernel.target);
  pass::PassOptions po;
  po.frontend = kernel.frontend;
  po.solver.solverTimeoutMs = o.solverTimeoutMs;
  r.state = std::make_unique<pass::PipelineState>(kernel.file, *r.target, po);
  r.passes = std::make_unique<pass::PassManager>(pipeline::compile(), o.passes, out, o.file);
  if (!r.passes->run(*r.state)) {
    err << r.state->diags.renderAll() << errorsGenerated(r.state->diags);
    return kExitCompileError;
  }
  return kExitOk;
}

int runExplainCommand(const ExplainOptions& o, std::ostream& out, std::ostream& err) {
  ScheduledFile r;
  if (int code = scheduleFile(o, out, err, r); code != kExitOk) return code;
  err << r.state->diags.renderAll() << r.passes->statsText(*r.state);
  for (size_t i = 0; i < r.numKernels(); ++i) {
    if (i) out << "\n";
    const ir::Kernel& k = r.kernel(i);
    if (k.manualCores) {
      out << fmt::format(
          "explain {}: written in the manual form, so nothing is scheduled: it runs as written, "
          "the AIC running 'with T.Cube()' and {} 'with T.Vector()'; UB buffers, fragments and "
          "registers have one copy per core\n",
          k.displayName(),
          k.manualCores->vectorCores == 1 ? "AIV 0 running" : "AIV 0 and AIV 1 each running");
      continue;
    }
    out << printExplanation(k, explainSchedule(r.analysis(i), k, r.schedule(i), *r.target), o.file,
                            *r.target);
    if (r.analysis(i).mixedCores())
      out << analysis::printCoreAssignment(*r.analysis(i).cores, o.file);
  }
  out << r.passes->timesText();
  return kExitOk;
}

}  // namespace tilesched::driver
