// The pass record and the registry of every named pass (SPEC §4; MLIR's
// PassRegistry is the model): a pass's name, its one-line summary, whether
// it runs once for the program or once per kernel, the pass it needs before
// it, and its run function. `--print-after`, `--time-passes`, `--stats`,
// `tilesched --help`, `tilesched opt --passes` and docs/passes.md all read
// this list (a test keeps docs/passes.md equal to it).
//
// Expects: nothing; this header is light on purpose (the command line
// includes it for the help text).
// Guarantees: kPasses() is in pipeline order; every pipeline of
// pipeline/Pipelines.h is a subsequence of it; a run function returns false
// exactly when it put an error into the state's diagnostics (the pipeline
// stops after that pass).
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>

namespace tilesched::pass {

struct PipelineState;

enum class PassScope {
  Program,  // once: the whole file (elaborate, analyze, simulate)
  Kernel,   // once per kernel, kernel by kernel (the schedule and the lowering)
};

struct Pass {
  std::string_view name;
  std::string_view summary;
  PassScope scope;
  // The pass whose product this one reads ("" for none).
  std::string_view needs;
  bool (*runProgram)(PipelineState&) = nullptr;                // PassScope::Program
  bool (*runKernel)(PipelineState&, size_t kernel) = nullptr;  // PassScope::Kernel
  // `--stats`: what the pass counted on one kernel ("" for nothing).
  std::string (*stats)(const PipelineState&, size_t kernel) = nullptr;
  // False for a pass whose IR is incomplete until a later pass finishes it
  // (--verify-each skips it): materialize-versions indexes counter-mode
  // versions by an epoch counter that insert-synchronization declares and
  // advances, because where it advances depends on the guards it places.
  bool verifiable = true;
};

// Every named pass, in pipeline order.
std::span<const Pass> registry();
// The pass of that name, or null.
const Pass* findPass(std::string_view name);

}  // namespace tilesched::pass
