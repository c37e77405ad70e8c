// `tilesched run --compare` (alias `--schedule all`) and bench/compare_bench:
// one kernel file compiled once, then scheduled, lowered and simulated in
// each of auto, none, double and serial, side by side (issue 10).
//
// Expects: a readable kernel file and a loaded target.
// Guarantees: every mode is lowered and simulated independently (a mode that
// fails to compile, e.g. `double` over the capacity of UB, is a row with its
// error and no cycles); each row has the simulated cycles, both bounds
// (busiest pipe; busiest pipe + fill + drain, see analysis/FillDrain.h), the
// versions, each loop's II and its lower bound, compile and solve
// milliseconds and PASS/FAIL; auto's speedup over each peer is
// peer cycles / auto cycles. Deterministic except for the milliseconds.
//
//   mode    result  cycles  bound  eff    bound+f/d  eff f/d  auto x  compile  solve  II/bound |
//   versions auto    PASS      1063    656  61.7%       1046    98.4%    1.00  19.9ms  9.7ms  s
//   164/164 | a_ub 2, ... none    PASS      1481    656  44.3%       1046    70.6%    1.39   0.0ms
//   0.0ms  -         | a_ub 1, ...
#pragma once

#include <array>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "analysis/FillDrain.h"
#include "sim/Run.h"
#include "target/Target.h"

namespace tilesched::driver {

// The schedule modes of a comparison, in row order.
inline constexpr const char* kCompareModes[] = {"auto", "none", "double", "serial"};

struct CompareOptions {
  std::string file;
  std::vector<std::pair<std::string, std::string>> defines;  // -D NAME=VALUE
  std::string func;
  unsigned solverTimeoutMs = 2000;
  sim::RunOptions run;
  bool verifyEach = false;  // the IR verifier after every pass
};

struct CompareLoop {
  std::string var;
  unsigned line = 0;
  int64_t ii = 0, iiLowerBound = 0;
  bool provenOptimal = false, fallback = false;
};

struct CompareRow {
  std::string mode;
  bool compiled = false;  // false: `error` holds the first compile error
  bool pass = false;      // compiled, outputs match, no race / flag / capacity / run-time error
  std::string error;
  int64_t cycles = 0, lowerBound = 0, fillDrainBound = 0;
  double efficiency = 0, fillDrainEfficiency = 0;
  std::string bottleneck;
  std::array<int64_t, kNumPipes> busy{};
  int64_t flagStall = 0;
  std::vector<std::pair<std::string, int64_t>> versions;  // on-chip buffers, in kernel order
  std::vector<CompareLoop> loops;                         // auto only
  double compileMs = 0;  // this mode's schedule + lowering (front end and analyses excluded)
  double solveMs = 0;    // sum of the loops' solver times (auto only)
};

struct Comparison {
  std::string file;
  std::string kernel;            // factory or prim_func name(s), one per prim_func
  bool compiled = false;         // the front end and the analyses succeeded
  std::string diagnostics;       // rendered front-end / analysis diagnostics
  double frontendMs = 0;         // parse, elaborate, analyse (shared by all modes)
  std::vector<CompareRow> rows;  // kCompareModes order

  const CompareRow* row(const std::string& mode) const;
  bool allPass() const;
};

Comparison compareSchedules(const CompareOptions& options, const Target& target);

// The side-by-side rows a person reads (`run --compare`).
std::string renderComparison(const Comparison& c);
// {"file", "kernel", "frontend_ms", "modes": [{"schedule", "compiled", "pass",
// "error", "cycles", "lower_bound", "efficiency", "fill_drain_bound",
// "fill_drain_efficiency", "bottleneck", "versions": {name: n}, "loops": [{"var",
// "line", "ii", "ii_lower_bound", "proven_optimal", "fallback"}], "compile_ms",
// "solve_ms", "auto_speedup"}]}; auto_speedup = this mode's cycles / auto's (null when
// either did not run).
nlohmann::json comparisonJson(const Comparison& c);

}  // namespace tilesched::driver
