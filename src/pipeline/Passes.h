// The registry of named passes and the order each command runs them in
// (SPEC §4): the one place a pass's name, its one-line summary and its
// position are written. `--print-after` and `--time-passes` check names
// against it, `tilesched --help` and docs/passes.md list it (a test keeps
// docs/passes.md equal to it).
//
// Expects: the pass functions themselves live in their layers and report
// under these names (transform/Lowering.cpp, driver/).
// Guarantees: every command's list is a subsequence of kPasses, in its order.
//
// Still to come (issue 18): pass records that carry their run function, and
// a manager that runs the lists below, so the commands stop writing the order
// out by hand.
#pragma once

#include <span>
#include <string_view>

namespace tilesched::pipeline {

struct PassInfo {
  std::string_view name;
  std::string_view summary;
};

// Every named pass, in pipeline order.
inline constexpr PassInfo kPasses[] = {
    {"elaborate", "parse the kernel file, evaluate its host Python and build the verified tile IR"},
    {"analyze", "tasks, owner loops, dependences and multi-buffer eligibility of every loop"},
    {"schedule",
     "modulo schedule and buffer versions of every loop (Z3; none/double: a fixed rule)"},
    {"version-modes", "how each multi-versioned buffer selects its version (iteration or counter)"},
    {"materialize-versions", "give each versioned buffer its leading version dimension"},
    {"insert-synchronization",
     "set_flag / wait_flag / pipe_barrier between the pipes, event ids, stages"},
    {"verify-lowered-sync", "check that the flags balance on every path (internal error if not)"},
    {"simulate", "run the sequential reference and the cycle simulation, check outputs and races"},
};

// `tilesched compile`.
inline constexpr std::string_view kCompilePasses[] = {"elaborate", "analyze", "schedule"};

// `tilesched run --schedule auto|none|double` (serial and as-written run the
// front end and `simulate` only).
inline constexpr std::string_view kRunPasses[] = {"elaborate",
                                                  "analyze",
                                                  "schedule",
                                                  "version-modes",
                                                  "materialize-versions",
                                                  "insert-synchronization",
                                                  "verify-lowered-sync",
                                                  "simulate"};

}  // namespace tilesched::pipeline
