// The `tilesched` command line (SPEC §7.2): parses arguments, runs the
// front end and the passes, prints IR, tables and reports.
//
// Exit status (SPEC §7.3): 0 success; 1 compile errors; 2 usage errors;
// 3 a run whose outputs mismatch or that has races, flag or capacity errors.
#pragma once

#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "frontend/Elaborator.h"
#include "pass/PassManager.h"
#include "support/Diagnostics.h"
#include "target/Target.h"

namespace tilesched::driver {

enum ExitCode { kExitOk = 0, kExitCompileError = 1, kExitUsage = 2, kExitRunFailed = 3 };

struct CompileOptions {
  std::string file;
  std::vector<std::string> defines;
  std::string func;
  std::string target;  // "" = the default target
  std::string emit;
  std::string reportPath;
  unsigned solverTimeoutMs = 2000;
  std::string dumpProblemsDir;
  pass::Instrumentation passes;  // --print-after, --time-passes, --stats, ...
};

// `tilesched compile` with parsed options.
int runCompile(const CompileOptions& options, std::ostream& out, std::ostream& err);

// In-process entry point so tests can run the CLI without spawning it.
int runCli(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

// The text of the kernel file every command reads; false with `error` set
// ("cannot read 'k.py'", "'dir' is a directory, not a kernel file") when it
// cannot be read: a usage error (exit 2) for the caller.
bool readKernelFile(const std::string& path, std::string& text, std::string& error);

// A command's FILE, -D, --func and --target, checked and opened: the kernel
// file read, the target loaded, the defines split at '='.
struct OpenedKernel {
  std::shared_ptr<SourceFile> file;
  std::optional<Target> target;
  frontend::FrontendOptions frontend;
};
// "" on success, else the usage message (exit 2): a -D without '=', an
// unknown target, an unreadable file, checked in that order.
std::string openKernel(const std::string& path, const std::vector<std::string>& defines,
                       const std::string& func, const std::string& target, OpenedKernel& out);

// "1 error generated.\n", "3 errors generated.\n".
std::string errorsGenerated(const DiagnosticEngine& diags);

}  // namespace tilesched::driver
