// `--print-after PASS|all` and `--time-passes` of the commands that run named
// passes (`compile`, `run`; SPEC §4, STYLE "Passes and the driver").
//
// Expects: the command calls after() once per pass it runs (per kernel for
// per-kernel passes), in order, with the kernel the pass produced or null
// when the pass changed no IR.
// Guarantees: the IR after every chosen pass, as
//
//   # ---- IR after elaborate ----
//   @T.prim_func
//   def main(...): ...
//   # ---- IR after analyze ----
//   # (unchanged)
//
// and, with --time-passes, one line per pass (a per-kernel pass summed over
// the kernels) and the total.
#pragma once

#include <chrono>
#include <iosfwd>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ir/IR.h"

namespace tilesched::driver {

class PassLog {
 public:
  // `printAfter`: "" (print nothing), "all" or a pass name; `file` names the
  // kernel file in printed kernels.
  PassLog(std::ostream& out, std::string file, std::string printAfter, bool timePasses)
      : out_(out),
        file_(std::move(file)),
        printAfter_(std::move(printAfter)),
        timePasses_(timePasses) {}

  void after(std::string_view pass, double ms, const ir::Kernel* changed);
  // A pass that ran once for the whole program and produced every kernel
  // (elaborate): timed once, each kernel printed.
  void afterProgram(std::string_view pass, double ms, const std::vector<ir::Kernel>& kernels);
  void printTimes() const;  // with --time-passes only

 private:
  std::ostream& out_;
  std::string file_, printAfter_;
  bool timePasses_;
  std::vector<std::pair<std::string, double>> times_;
};

// A usage message when `printAfter` is neither empty, "all" nor one of
// `passes`; "" otherwise.
std::string checkPrintAfter(const std::string& printAfter,
                            std::span<const std::string_view> passes);

double msSince(std::chrono::steady_clock::time_point start);

}  // namespace tilesched::driver
