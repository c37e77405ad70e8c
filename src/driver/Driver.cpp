#include "driver/Driver.h"

#include <CLI/CLI.hpp>
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
#include "schedule/SchedulePrinter.h"
#include "schedule/ScheduleStats.h"
#include "schedule/Scheduler.h"
#include "schedule/WriteBack.h"
#include "target/Target.h"

namespace tilesched::driver {

namespace {

struct CompileOptions {
  std::string file;
  std::vector<std::string> defines;
  std::string func;
  std::string target = defaultTargetName();
  std::string emit;
  std::string reportPath;
  unsigned solverTimeoutMs = 2000;
  std::string dumpProblemsDir;
  bool stats = false;
  std::string printAfter;  // --print-after PASS|all
};

// The named passes of `compile`, in order (`--print-after`).
constexpr const char* kCompilePasses[] = {"elaborate", "analyze", "schedule"};

int usageError(std::ostream& err, const std::string& msg) {
  err << "tilesched: error: " << msg << "\n";
  return kExitUsage;
}

int runCompile(const CompileOptions& opts, std::ostream& out, std::ostream& err) {
  static const char* kEmits[] = {"", "ir", "report-json", "buffers", "tasks", "schedule"};
  bool emitOk = false;
  for (const char* e : kEmits) emitOk |= opts.emit == e;
  if (!emitOk) {
    if (opts.emit == "scheduled")
      return usageError(err,
                        "--emit scheduled is not available yet: the lowering is not built; use "
                        "ir, tasks, schedule, buffers or report-json");
    return usageError(err, fmt::format("unknown --emit '{}'; use ir, tasks, schedule, buffers or "
                                       "report-json",
                                       opts.emit));
  }
  if (std::string msg = checkPrintAfter(opts.printAfter, kCompilePasses); !msg.empty())
    return usageError(err, msg);
  if (!opts.printAfter.empty() && opts.emit == "report-json")
    return usageError(err,
                      "--print-after prints IR on stdout, which --emit report-json keeps for the "
                      "report; write the report with --report FILE instead");
  frontend::FrontendOptions fe;
  fe.func = opts.func;
  for (const auto& d : opts.defines) {
    auto eq = d.find('=');
    if (eq == std::string::npos || eq == 0)
      return usageError(err, fmt::format("-D expects NAME=VALUE, got '{}'", d));
    fe.defines.push_back({d.substr(0, eq), d.substr(eq + 1)});
  }
  std::string targetError;
  auto target = loadTarget(opts.target, targetError);
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
  PassLog log(out, opts.file, opts.printAfter, /*timePasses=*/false);
  auto start = std::chrono::steady_clock::now();
  auto program = frontend::compileSource(file, fe, diags);
  if (program)
    for (const auto& k : program->kernels) log.after("elaborate", msSince(start), &k);
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
  return kExitOk;
}

}  // namespace

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

int runCli(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  CLI::App app{"tilesched — auto-scheduler for TileLang-Ascend tile kernels"};
  app.set_version_flag("--version", std::string("tilesched ") + TILESCHED_VERSION);
  app.require_subcommand(1);
  CompileOptions opts;
  auto* compile =
      app.add_subcommand("compile", "compile a kernel file and print its IR, buffers or report");
  compile->add_option("FILE", opts.file, "kernel file (.py)")->required();
  compile->add_option("-D", opts.defines, "factory parameter NAME=VALUE (a Python literal)")
      ->allow_extra_args(false);
  compile->add_option("--func", opts.func, "kernel (prim_func or factory) to compile");
  compile->add_option("--target", opts.target, "target name (ascend950, ascend910b) or JSON file");
  compile->add_option(
      "--emit", opts.emit,
      "ir | tasks | schedule | buffers | report-json (default: IR and buffer table)");
  compile->add_option("--report", opts.reportPath, "write the JSON report to this file");
  compile->add_option(
      "--solver-timeout-ms", opts.solverTimeoutMs,
      "work budget of the scheduler's solve of each loop, in milliseconds of Z3 work (1000 "
      "resource units each, load-independent), 4 times that for "
      "all loops of a kernel; 0: list schedules only (default 2000)");
  compile->add_option("--dump-schedule-problems", opts.dumpProblemsDir,
                      "write every scheduling problem and its result as JSON into DIR");
  compile->add_option("--print-after", opts.printAfter,
                      "print the IR after a pass (elaborate, analyze, schedule) or after all");
  compile->add_flag("--stats", opts.stats,
                    "print the scheduler's counters (solver checks, timeouts, fallbacks, per-list "
                    "ms) to stderr");
  RunCommandOptions runOpts;
  auto* run = addRunCommand(app, runOpts);
  ExplainOptions explainOpts;
  auto* explain = addExplainCommand(app, explainOpts);
  PinOptions pinOpts;
  auto* pin = addPinCommand(app, pinOpts);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    out << app.help();
    return kExitOk;
  } catch (const CLI::CallForVersion&) {
    out << app.version() << "\n";
    return kExitOk;
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) {
      out << app.help();
      return kExitOk;
    }
    // CLI11 says "A subcommand is required" for a misspelt one; name it instead.
    std::string message = e.what();
    if (argc > 1 && argv[1][0] != '-' && std::string(argv[1]) != "compile" &&
        std::string(argv[1]) != "run" && std::string(argv[1]) != "explain" &&
        std::string(argv[1]) != "pin")
      message = fmt::format(
          "unknown command '{}'; commands are 'compile', 'run', 'explain' and 'pin'", argv[1]);
    err << "tilesched: error: " << message << "\n"
        << "run 'tilesched --help' for usage\n";
    return kExitUsage;
  }
  try {
    if (compile->parsed()) return runCompile(opts, out, err);
    if (run->parsed()) return runRunCommand(runOpts, out, err);
    if (explain->parsed()) return runExplainCommand(explainOpts, out, err);
    if (pin->parsed()) return runPinCommand(pinOpts, out, err);
  } catch (const InternalError& e) {
    err << "tilesched: " << e.what() << "\nplease report this bug with the kernel file\n";
    return kExitCompileError;
  } catch (const std::exception& e) {
    err << "tilesched: internal error: " << e.what() << "\n";
    return kExitCompileError;
  }
  return kExitUsage;
}

}  // namespace tilesched::driver
