// Every use of CLI11 (SPEC §7.2): the subcommands, their options and help,
// and the dispatch to the commands. One translation unit on purpose: CLI11
// 2.1 (Debian's) is header-only and costs about 8 s of compile per file that
// includes it, so the command files take plain option structs.
#include <CLI/CLI.hpp>

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "Version.h"
#include "driver/Driver.h"
#include "driver/ExplainCommand.h"
#include "driver/OptCommand.h"
#include "driver/PinCommand.h"
#include "driver/RunCommand.h"
#include "driver/SolveCommand.h"
#include "pass/Pass.h"
#include "pipeline/Pipelines.h"
#include "support/Diagnostics.h"
#include "target/Target.h"

namespace tilesched::driver {

namespace {

// `tilesched --help` ends with the registry (pass/Pass.h).
std::string passesFooter() {
  std::string text = "\nPasses (opt --passes, --print-after, --time-passes; docs/passes.md):\n";
  for (const auto& p : pass::registry()) text += fmt::format("  {:<24} {}\n", p.name, p.summary);
  return text;
}

// The pass flags every command takes (pass/PassManager.h); `passes` is the
// command's pipeline, named in the help of --print-after.
void addPassOptions(CLI::App& cmd, pass::Instrumentation& flags,
                    std::span<const std::string_view> passes) {
  cmd.add_option("--print-after", flags.printAfter,
                 passes.empty() ? std::string("print the IR after a pass of --passes, or after all")
                                : fmt::format("print the IR after a pass ({}) or after all",
                                              fmt::join(passes, ", ")));
  cmd.add_flag("--print-after-change", flags.printAfterChange,
               "print the IR only after the passes that changed it");
  cmd.add_flag("--time-passes", flags.timePasses, "print the time of every pass");
  flags.verifyEach = pass::verifyEachByDefault();
  cmd.add_flag("--verify-each", flags.verifyEach,
               "run the IR verifier after every pass (on in debug builds and in the tests)");
  cmd.add_flag("--stats", flags.stats,
               "print what each pass counted (the scheduler's solver checks, timeouts, fallbacks "
               "and per-list ms; the synchronisation emitted; ...) to stderr");
}

// The options every command takes to find its kernel: FILE, -D, --func, --target.
void addKernelOptions(CLI::App& cmd, std::string& file, std::vector<std::string>& defines,
                      std::string& func, std::string& target, std::string_view verb) {
  cmd.add_option("FILE", file, "kernel file (.py)")->required();
  cmd.add_option("-D", defines, "factory parameter NAME=VALUE (a Python literal)")
      ->allow_extra_args(false);
  cmd.add_option("--func", func, fmt::format("kernel (prim_func or factory) to {}", verb));
  cmd.add_option("--target", target, "target name (ascend950, ascend910b) or JSON file");
}

void addSolverBudget(CLI::App& cmd, unsigned& solverTimeoutMs) {
  cmd.add_option(
      "--solver-timeout-ms", solverTimeoutMs,
      "work budget of the scheduler's solve of each loop, in milliseconds of Z3 work (1000 "
      "resource units each, load-independent), 4 times that for "
      "all loops of a kernel; 0: list schedules only (default 2000)");
}

}  // namespace

CLI::App* addRunCommand(CLI::App& app, RunCommandOptions& o) {
  auto* run = app.add_subcommand(
      "run", "compile, simulate on the Ascend core model and check against the reference run");
  addKernelOptions(*run, o.file, o.defines, o.func, o.target, "run");
  run->add_option("--schedule", o.schedule,
                  "auto (the Z3 schedule) | none (one version, flags) | double (two versions) | "
                  "serial | as-written | all (= --compare)");
  run->add_option("--schedule-file", o.scheduleFile,
                  "lower and run this schedule (as compile --emit schedule prints it) instead of "
                  "the solver's");
  run->add_flag("--compare", o.compare,
                "run auto, none, double and serial side by side (cycles, bounds, speedups)");
  addPassOptions(*run, o.passes, pipeline::run("auto"));
  addSolverBudget(*run, o.solverTimeoutMs);
  run->add_option("--seed", o.seed, "seed of the generated inputs (default 0)")
      ->check(CLI::Validator(
          [](std::string& v) {
            return v.find('-') == std::string::npos ? std::string()
                                                    : "the seed must be 0 or more, got " + v;
          },
          "", "NON_NEGATIVE"));
  run->add_option("--cores", o.cores,
                  "AI cores running blocks concurrently (default: one per block)");
  run->add_option("--input", o.inputs,
                  "NAME=file.npy for a tensor, NAME=number for a scalar parameter")
      ->allow_extra_args(false);
  run->add_option("--output-dir", o.outputDir,
                  "write every output tensor of the simulated run as NAME.npy");
  run->add_option("--trace", o.tracePath, "write a Chrome/Perfetto trace (JSON)");
  run->add_option("--timeline", o.timelinePath,
                  "write an SVG Gantt chart of the pipes (identical blocks drawn once)");
  run->add_flag("--timeline-all-blocks", o.timelineAllBlocks,
                "draw every block in the --timeline chart, identical ones too");
  run->add_option("--emit", o.emit, "lowered: print the lowered kernel before running it");
  run->add_option("--report", o.reportPath, "write the JSON report with its `simulation` object");
  return run;
}

CLI::App* addExplainCommand(CLI::App& app, ExplainOptions& o) {
  auto* cmd = app.add_subcommand(
      "explain", "say why each buffer got its versions and what bounds each loop's II");
  addKernelOptions(*cmd, o.file, o.defines, o.func, o.target, "explain");
  addSolverBudget(*cmd, o.solverTimeoutMs);
  addPassOptions(*cmd, o.passes, pipeline::compile());
  return cmd;
}

CLI::App* addPinCommand(CLI::App& app, PinOptions& o) {
  auto* cmd = app.add_subcommand("pin",
                                 "write the chosen buffer versions back into the kernel file as "
                                 "T.annotate_buffer_versions");
  addKernelOptions(*cmd, o.file, o.defines, o.func, o.target, "pin");
  auto* output = cmd->add_option("-o", o.output, "write the pinned file here (default: stdout)");
  cmd->add_flag("--in-place", o.inPlace, "rewrite FILE itself")->excludes(output);
  addSolverBudget(*cmd, o.solverTimeoutMs);
  addPassOptions(*cmd, o.passes, pipeline::compile());
  return cmd;
}

CLI::App* addOptCommand(CLI::App& app, OptOptions& o) {
  auto* cmd = app.add_subcommand(
      "opt", "run the named passes on a kernel file and print the IR they leave");
  addKernelOptions(*cmd, o.file, o.defines, o.func, o.target, "run the passes on");
  cmd->add_option("--passes", o.passes,
                  "comma-separated passes, in pipeline order (elaborate always runs first)")
      ->required();
  cmd->add_option("--schedule", o.schedule,
                  "the rule of the schedule pass: auto (Z3), none or double (default auto)");
  cmd->add_option("--schedule-file", o.scheduleFile,
                  "read the schedule (as compile --emit schedule prints it) instead of solving");
  addSolverBudget(*cmd, o.solverTimeoutMs);
  addPassOptions(*cmd, o.instrumentation, {});
  return cmd;
}

CLI::App* addSolveCommand(CLI::App& app, SolveOptions& o) {
  auto* cmd = app.add_subcommand(
      "solve", "solve one scheduling problem given as JSON (TileLang's solver arguments)");
  cmd->add_option("PROBLEM", o.file,
                  "problem file (.json): the upstream arguments or a --dump-schedule-problems file")
      ->required();
  cmd->add_flag("--straight-line", o.straightLine,
                "a straight-line list (z3_schedule_python), minimising the makespan");
  cmd->add_option("--timeout-ms", o.timeoutMs, "solver work budget (default 2000; 0: no solver)");
  cmd->add_option("--emit", o.emit, "json | text (default json)");
  cmd->footer("The fields and what comes back: docs/solver-interface.md");  // not the pass list
  return cmd;
}

int runCli(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  CLI::App app{"tilesched — auto-scheduler for TileLang-Ascend tile kernels"};
  app.footer(passesFooter());
  app.set_version_flag("--version", std::string("tilesched ") + TILESCHED_VERSION);
  app.require_subcommand(1);
  CompileOptions opts;
  auto* compile =
      app.add_subcommand("compile", "compile a kernel file and print its IR, buffers or report");
  addKernelOptions(*compile, opts.file, opts.defines, opts.func, opts.target, "compile");
  compile->add_option(
      "--emit", opts.emit,
      "ir | tasks | schedule | buffers | report-json (default: IR and buffer table)");
  compile->add_option("--report", opts.reportPath, "write the JSON report to this file");
  addSolverBudget(*compile, opts.solverTimeoutMs);
  compile->add_option("--dump-schedule-problems", opts.dumpProblemsDir,
                      "write every scheduling problem and its result as JSON into DIR");
  addPassOptions(*compile, opts.passes, pipeline::compile());
  RunCommandOptions runOpts;
  auto* run = addRunCommand(app, runOpts);
  ExplainOptions explainOpts;
  auto* explain = addExplainCommand(app, explainOpts);
  PinOptions pinOpts;
  auto* pin = addPinCommand(app, pinOpts);
  OptOptions optOpts;
  auto* opt = addOptCommand(app, optOpts);
  SolveOptions solveOpts;
  auto* solve = addSolveCommand(app, solveOpts);
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
    std::vector<std::string> commands;
    for (const CLI::App* sub : {compile, run, explain, pin, opt, solve})
      commands.push_back(sub->get_name());
    if (argc > 1 && argv[1][0] != '-' &&
        std::find(commands.begin(), commands.end(), argv[1]) == commands.end()) {
      std::string last = commands.back();
      commands.pop_back();
      message = fmt::format("unknown command '{}'; commands are '{}' and '{}'", argv[1],
                            fmt::join(commands, "', '"), last);
    }
    err << "tilesched: error: " << message << "\n"
        << "run 'tilesched --help' for usage\n";
    return kExitUsage;
  }
  try {
    if (compile->parsed()) return runCompile(opts, out, err);
    if (run->parsed()) return runRunCommand(runOpts, out, err);
    if (explain->parsed()) return runExplainCommand(explainOpts, out, err);
    if (pin->parsed()) return runPinCommand(pinOpts, out, err);
    if (opt->parsed()) return runOptCommand(optOpts, out, err);
    if (solve->parsed()) return runSolveCommand(solveOpts, out, err);
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
