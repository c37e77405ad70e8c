// Runs a pipeline (a list of registered pass names) over a PipelineState,
// with the instrumentation every command offers (MLIR's PassManager and its
// instrumentations are the model):
//
//   --print-after PASS|all   the IR after that pass (after every pass)
//   --print-after-change     only where the pass changed the printed IR
//   --time-passes            one line per pass and the total
//   --verify-each            the IR verifier after every pass (on in debug
//                            builds and under the test suite)
//   --stats                  what each pass counted, per kernel
//
// Expects: every name is in pass::registry(); a pass's `needs` ran before it,
// in this pipeline or an earlier one over the same state.
// Guarantees: program passes run once; consecutive kernel passes run kernel
// by kernel (kernel 0 through all of them, then kernel 1, as MLIR nests a
// function pipeline), so the IR printed after them reads kernel by kernel.
// A pass that fails on a kernel skips the rest of that kernel's passes; the
// other kernels still run them (their errors are reported too), and the
// pipeline stops after the group. Whether a pass changed the IR is decided
// by comparing the printed kernel before and after it, never by its name.
// A kernel that fails the verifier after a pass is an internal error naming
// the pass.
//
//   # ---- IR after schedule ----
//   @T.prim_func
//   def main(...): ...
//   # ---- IR after version-modes ----
//   # (unchanged)
#pragma once

#include <functional>
#include <iosfwd>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pass/Pass.h"
#include "pass/PassState.h"

namespace tilesched::pass {

struct Instrumentation {
  std::string printAfter;  // "", "all" or a pass name
  bool printAfterChange = false;
  bool timePasses = false;
  bool verifyEach = false;
  bool stats = false;
};

// --verify-each's default: on in builds without NDEBUG and when the
// environment sets TILESCHED_VERIFY_EACH=1 (the test suite does).
bool verifyEachByDefault();

// A usage message when `printAfter` is neither "", "all" nor one of
// `pipeline`'s passes; "" otherwise.
std::string checkPrintAfter(const std::string& printAfter,
                            std::span<const std::string_view> pipeline);

class PassManager {
 public:
  // `out` receives the printed IR; `fileName` names the kernel file in it.
  PassManager(std::span<const std::string_view> pipeline, Instrumentation instrumentation,
              std::ostream& out, std::string fileName);

  // Runs the pipeline; false when a pass failed (its errors are in
  // state.diags). May be called again on another state (times add up).
  bool run(PipelineState& state);

  // --time-passes: "  pass timings (ms):" and one line per pass ("" without it).
  std::string timesText() const;
  // --stats: every pass's counters for every kernel it ran on ("" without it).
  std::string statsText(const PipelineState& state) const;
  // The milliseconds of every pass run so far; of the passes named `name`.
  double totalMs() const;
  double msOf(std::string_view name) const;

  // Called before each pass runs (MLIR's runBeforePass): `run` shows the
  // compile's diagnostics and `--emit lowered` before the simulation starts.
  void setBeforePass(std::function<void(const Pass&, const PipelineState&)> hook) {
    beforePass_ = std::move(hook);
  }

 private:
  bool runProgramPass(const Pass& pass, PipelineState& state);
  bool runKernelGroup(std::span<const Pass* const> group, PipelineState& state);
  void record(const Pass& pass, double ms);
  bool printing(const Pass& pass) const;
  // The IR after `pass`: `texts` holds each kernel's printed IR before and after it.
  void printAfter(const Pass& pass, const std::vector<std::pair<std::string, std::string>>& texts);
  void verify(const Pass& pass, const PipelineState& state, size_t kernel) const;

  std::vector<const Pass*> passes_;
  Instrumentation instrumentation_;
  std::ostream& out_;
  std::string fileName_;
  std::vector<std::pair<std::string_view, double>> times_;
  std::vector<std::pair<const Pass*, size_t>> ran_;  // (pass, kernel) for --stats
  std::function<void(const Pass&, const PipelineState&)> beforePass_;
};

}  // namespace tilesched::pass
