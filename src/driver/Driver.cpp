// `tilesched compile` (the IR, task graph, schedule, buffer table or report
// of a kernel file) and the kernel-file reader every command shares; the
// command line itself is CommandLine.cpp.
#include "driver/Driver.h"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include <fmt/format.h>

#include "Version.h"
#include "driver/ExplainCommand.h"
#include "driver/PinCommand.h"
#include "driver/RunCommand.h"
#include "frontend/Elaborator.h"
#include "ir/Printer.h"
#include "pipeline/Pipelines.h"
#include "report/Report.h"
#include "report/RunReport.h"
#include "schedule/SchedulePrinter.h"
#include "schedule/ScheduleStats.h"
#include "schedule/Scheduler.h"
#include "schedule/WriteBack.h"
#include "target/Target.h"

namespace tilesched::driver {

namespace {

int usageError(std::ostream& err, const std::string& msg) {
  err << "tilesched: error: " << msg << "\n";
  return kExitUsage;
}

}  // namespace

int runCompile(const CompileOptions& opts, std::ostream& out, std::ostream& err) {
  static const char* kEmits[] = {"", "ir", "report-json", "buffers", "tasks", "schedule"};
  bool emitOk = false;
  for (const char* e : kEmits) emitOk |= opts.emit == e;
  if (!emitOk) {
    if (opts.emit == "scheduled" || opts.emit == "lowered")
      return usageError(err, fmt::format("--emit {} is a `run` option: `tilesched run FILE --emit "
                                         "lowered` prints the scheduled, synchronised kernel; "
                                         "compile emits ir, tasks, schedule, buffers or "
                                         "report-json",
                                         opts.emit));
    return usageError(err, fmt::format("unknown --emit '{}'; use ir, tasks, schedule, buffers or "
                                       "report-json",
                                       opts.emit));
  }
  if (std::string msg = pass::checkPrintAfter(opts.passes.printAfter, pipeline::compile());
      !msg.empty())
    return usageError(err, msg);
  for (const auto& [flag, set] :
       {std::pair<const char*, bool>{"--print-after", !opts.passes.printAfter.empty()},
        {"--print-after-change", opts.passes.printAfterChange},
        {"--time-passes", opts.passes.timePasses}})
    if (set && opts.emit == "report-json")
      return usageError(err, fmt::format("{} prints on stdout, which --emit report-json keeps for "
                                         "the report; write the report with --report FILE instead",
                                         flag));
  if (!opts.dumpProblemsDir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(opts.dumpProblemsDir, ec);
    if (ec || !std::filesystem::is_directory(opts.dumpProblemsDir))
      return usageError(err, fmt::format("cannot create --dump-schedule-problems directory '{}'",
                                         opts.dumpProblemsDir));
  }
  OpenedKernel kernel;
  if (std::string msg = openKernel(opts.file, opts.defines, opts.func, opts.target, kernel);
      !msg.empty())
    return usageError(err, msg);
  const Target& target = *kernel.target;

  // AutoSchedule of every loop and the kernel root, then the version
  // write-back (the IR after `schedule` shows the written-back map).
  pass::PassOptions po;
  po.frontend = kernel.frontend;
  po.solver.solverTimeoutMs = opts.solverTimeoutMs;
  po.solver.dumpDirectory = opts.dumpProblemsDir;
  po.writeBackVersions = true;
  pass::PipelineState state(kernel.file, target, po);
  pass::PassManager passes(pipeline::compile(), opts.passes, out, opts.file);
  // Errors of the analyses (e.g. nested ownership claims) or of the
  // scheduler (capacity) make the compile fail.
  bool compiled = passes.run(state);
  const DiagnosticEngine& diags = state.diags;
  std::shared_ptr<ir::Program> program = compiled ? state.program : nullptr;
  err << diags.renderAll();
  if (program) err << passes.statsText(state);
  std::vector<schedule::KernelSchedule> schedules;
  for (const auto& ks : state.kernels)
    if (ks.schedule) schedules.push_back(*ks.schedule);
  std::vector<analysis::KernelAnalysis> noAnalyses;
  const auto& analyses = state.analyses ? *state.analyses : noAnalyses;

  auto report = [&] {
    return report::compileReport(program.get(), opts.file, &target, diags, &analyses, &schedules);
  };
  if (!opts.reportPath.empty()) {
    std::ofstream rep(opts.reportPath);
    if (!rep) return usageError(err, fmt::format("cannot write report '{}'", opts.reportPath));
    rep << report().dump(2) << "\n";
  }
  if (opts.emit == "report-json") out << report().dump(2) << "\n";
  if (!program) {
    if (diags.numErrors() > 0) err << errorsGenerated(diags);
    return kExitCompileError;
  }
  if (opts.emit == "ir" || opts.emit.empty()) {
    // The IR as elaborated: the annotations as written, not the written-back
    // versions (`{buf: 1}` would read back as an opt-out).
    ir::Program asWritten = *program;
    for (auto& k : asWritten.kernels) k.annotations.selectedVersions.clear();
    out << printProgram(asWritten);
  }
  if (opts.emit == "tasks") out << analysis::printTaskGraph(analyses);
  if (opts.emit == "schedule")
    for (size_t i = 0; i < schedules.size(); ++i)
      out << (i ? "\n" : "")
          << schedule::printSchedule(program->kernels[i], analyses[i], schedules[i]);
  if (opts.emit == "buffers" || opts.emit.empty()) {
    for (const auto& k : program->kernels) {
      out << (opts.emit.empty() ? "\n" : "") << "# buffers of " << k.displayName() << " (grid "
          << k.grid << ", target " << target.name << ")\n";
      out << printBufferTable(k);
    }
  }
  out << passes.timesText();
  return kExitOk;
}

std::string openKernel(const std::string& path, const std::vector<std::string>& defines,
                       const std::string& func, const std::string& target, OpenedKernel& out) {
  out.frontend.func = func;
  for (const auto& d : defines) {
    auto eq = d.find('=');
    if (eq == std::string::npos || eq == 0)
      return fmt::format("-D expects NAME=VALUE, got '{}'", d);
    out.frontend.defines.push_back({d.substr(0, eq), d.substr(eq + 1)});
  }
  std::string error;
  out.target = loadTarget(target.empty() ? defaultTargetName() : target, error);
  if (!out.target) return error;
  std::string text;
  if (!readKernelFile(path, text, error)) return error;
  out.file = std::make_shared<SourceFile>(path, std::move(text));
  return "";
}

std::string errorsGenerated(const DiagnosticEngine& diags) {
  return fmt::format("{} error{} generated.\n", diags.numErrors(),
                     diags.numErrors() == 1 ? "" : "s");
}

bool readKernelFile(const std::string& path, std::string& text, std::string& error) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    error = fmt::format("'{}' is a directory, not a kernel file", path);
    return false;
  }
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  if (in) ss << in.rdbuf();
  if (!in && !in.eof()) {
    error = fmt::format("cannot read '{}'", path);
    return false;
  }
  text = ss.str();
  return true;
}

}  // namespace tilesched::driver
