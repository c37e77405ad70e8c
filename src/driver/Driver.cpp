// `tilesched compile` (the IR, task graph, schedule, buffer table or report
// of a kernel file) and the kernel-file reader every command shares; the
// command line itself is CommandLine.cpp.
#include "driver/Driver.h"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include <fmt/format.h>

#include "Version.h"
#include "driver/ExplainCommand.h"
#include "driver/PassLog.h"
#include "driver/PinCommand.h"
#include "driver/Report.h"
#include "driver/RunCommand.h"
#include "frontend/Elaborator.h"
#include "ir/Printer.h"
#include "pipeline/Passes.h"
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
  if (std::string msg = checkPrintAfter(opts.printAfter, pipeline::kCompilePasses); !msg.empty())
    return usageError(err, msg);
  for (const auto& [flag, set] :
       {std::pair<const char*, bool>{"--print-after", !opts.printAfter.empty()},
        {"--time-passes", opts.timePasses}})
    if (set && opts.emit == "report-json")
      return usageError(err, fmt::format("{} prints on stdout, which --emit report-json keeps for "
                                         "the report; write the report with --report FILE instead",
                                         flag));
  frontend::FrontendOptions fe;
  fe.func = opts.func;
  for (const auto& d : opts.defines) {
    auto eq = d.find('=');
    if (eq == std::string::npos || eq == 0)
      return usageError(err, fmt::format("-D expects NAME=VALUE, got '{}'", d));
    fe.defines.push_back({d.substr(0, eq), d.substr(eq + 1)});
  }
  std::string targetError;
  auto target = loadTarget(opts.target.empty() ? defaultTargetName() : opts.target, targetError);
  if (!target) return usageError(err, targetError);
  if (!opts.dumpProblemsDir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(opts.dumpProblemsDir, ec);
    if (ec || !std::filesystem::is_directory(opts.dumpProblemsDir))
      return usageError(err, fmt::format("cannot create --dump-schedule-problems directory '{}'",
                                         opts.dumpProblemsDir));
  }
  std::string text, readError;
  if (!readKernelFile(opts.file, text, readError)) return usageError(err, readError);

  auto file = std::make_shared<SourceFile>(opts.file, std::move(text));
  DiagnosticEngine diags(file);
  PassLog log(out, opts.file, opts.printAfter, opts.timePasses);
  auto start = std::chrono::steady_clock::now();
  auto program = frontend::compileSource(file, fe, diags);
  if (program) log.afterProgram("elaborate", msSince(start), program->kernels);
  // The analyses report eligibility warnings, so they run before rendering.
  std::vector<analysis::KernelAnalysis> analyses;
  if (program) {
    start = std::chrono::steady_clock::now();
    analyses = analysis::analyzeProgram(*program, *target, diags);
    log.after("analyze", msSince(start), nullptr);
  }
  // AutoSchedule: every loop and the kernel root, then the version write-back
  // (the IR after `schedule` shows the written-back map).
  std::vector<schedule::KernelSchedule> schedules;
  if (program && !diags.hasErrors()) {
    schedule::ScheduleOptions so;
    so.solverTimeoutMs = opts.solverTimeoutMs;
    so.dumpDirectory = opts.dumpProblemsDir;
    for (size_t i = 0; i < program->kernels.size() && i < analyses.size(); ++i) {
      start = std::chrono::steady_clock::now();
      schedules.push_back(
          schedule::scheduleKernel(analyses[i], program->kernels[i], *target, so, diags));
      bool scheduled = !schedules.back().lists.empty();
      if (scheduled) schedule::writeBackVersions(program->kernels[i], schedules.back(), diags);
      log.after("schedule", msSince(start), scheduled ? &program->kernels[i] : nullptr);
    }
  }
  // Errors of the analyses (e.g. nested ownership claims) or of the scheduler
  // (capacity) make the compile fail.
  if (diags.hasErrors()) program.reset();
  err << diags.renderAll();
  if (opts.stats && program)
    for (size_t i = 0; i < schedules.size(); ++i)
      if (!schedules[i].lists.empty())
        err << schedule::printScheduleStats(program->kernels[i], schedules[i]);

  auto report = [&] {
    return compileReport(program ? &*program : nullptr, opts.file, &*target, diags, &analyses,
                         &schedules);
  };
  if (!opts.reportPath.empty()) {
    std::ofstream rep(opts.reportPath);
    if (!rep) return usageError(err, fmt::format("cannot write report '{}'", opts.reportPath));
    rep << report().dump(2) << "\n";
  }
  if (opts.emit == "report-json") out << report().dump(2) << "\n";
  if (!program) {
    if (diags.numErrors() > 0)
      err << diags.numErrors() << (diags.numErrors() == 1 ? " error" : " errors")
          << " generated.\n";
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
          << k.grid << ", target " << target->name << ")\n";
      out << printBufferTable(k);
    }
  }
  log.printTimes();
  return kExitOk;
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
