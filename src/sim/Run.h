// `tilesched run` without the command line: inputs, the sequential reference
// run of the original kernel, the cycle simulation of the lowered kernel and
// the bit-exact comparison of every global tensor (SPEC §7.1).
//
// Assumes: `lowered` was derived from `reference` and keeps its parameters
// (matched by name); both are verified kernels.
// Guarantees: both runs start from byte-identical global memory (or, for a
// later launch of runLaunches, from the previous launch's reference and
// simulated results); the result says which tensors differ and where;
// nothing is thrown for kernel errors.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ir/IR.h"
#include "sim/Npy.h"
#include "sim/Simulator.h"
#include "target/Target.h"

namespace tilesched::sim {

struct RunOptions {
  uint64_t seed = 0;
  int64_t cores = 0;  // 0: the grid
  // --input NAME=VALUE: a .npy file for a tensor, a number for a scalar parameter.
  std::map<std::string, std::string> inputs;
  bool recordTrace = true;
  // Progress of each launch (`tilesched run`'s progress line): called with
  // 0, 0 when it starts, after every block of the reference and of the
  // simulation (from their two threads: must be thread-safe), and with
  // total, total when it ends.
  std::function<void(const std::string& launch, int64_t referenceDone, int64_t simulatedDone,
                     int64_t total)>
      progress;
};

struct TensorCheck {
  std::string name;
  bool written = false;  // the reference run stored to it (an output)
  int64_t elements = 0;
  int64_t compared = 0;  // elements compared: all, or in a sampled run those touched
  int64_t mismatches = 0;
  std::vector<std::string>
      firstMismatches;  // "C[3, 7]: reference 1.5 (0x3fc00000), simulated 0 (0x0)"
};

struct KernelRun {
  std::string name;
  SimResult sim;
  std::vector<TensorCheck> tensors;
  bool outputsMatch = false;
  std::optional<SimIssue> referenceError;  // the reference run itself failed
  // The global tensors this launch wrote (dtype and shape, for --output-dir);
  // their bytes are in simulatedGlobals.
  std::vector<std::pair<std::string, NpyArray>> finalTensors;
  // Every global tensor after the run, by name: what the next launch of the
  // prim_func starts from (runLaunches).
  std::map<std::string, std::vector<uint8_t>> referenceGlobals, simulatedGlobals;
  // Cycle at which this launch starts: the end of the previous launch of the
  // same prim_func (runLaunches), 0 for a first launch.
  int64_t startCycle = 0;
  // A sampled run: the blocks that ran (the reference and the simulation),
  // and the bytes of the global tensors; empty for a run of every block.
  std::vector<int64_t> sampledBlocks;
  int64_t globalBytes = 0;
  double wallMs = 0;  // reference run, simulation and comparison (--time-passes)

  // Nothing wrong: outputs match, no race, no flag, capacity or run-time error.
  bool ok() const {
    return outputsMatch && !referenceError && sim.races.empty() && sim.issues.empty();
  }
};

// Fills `bytes` with values of the kind `recipe` names (seeded where random:
// a permutation, integers in [low, high)), converted to dtype `t`.
void generateFromRecipe(std::vector<uint8_t>& bytes, ir::DType t, const ir::InputRecipe& recipe,
                        uint64_t seed, const std::string& name);
// Fills `bytes` with the seeded input pattern of dtype `t`: floats are
// multiples of 1/128 in [-2, 2) (exact in fp16 and bf16, small enough to keep
// fp16 kernels finite), signed ints in [-8, 8), unsigned in [0, 16), bools 0/1.
void generateInput(std::vector<uint8_t>& bytes, ir::DType t, uint64_t seed,
                   const std::string& name);
// The elements [first, first + count) of that pattern, written to `out`.
void generateInputElements(uint8_t* out, ir::DType t, uint64_t seed, const std::string& name,
                           int64_t first, int64_t count);

// What the simulator runs (docs/simulator.md "Limits"); `compile` has no such
// limits. Memory counts every byte of a kernel's global tensors and on-chip
// buffers (each is held twice more, as shadow bytes and by the other run).
inline constexpr int64_t kMaxSimulatedBlocks = int64_t(1) << 16;
inline constexpr int64_t kMaxSimulatedBytes = int64_t(1) << 30;
// Iterations of any one loop over all blocks and its enclosing loops.
inline constexpr int64_t kMaxSimulatedIterations = int64_t(1) << 24;
// Global tensors of a sampled run are reserved (not allocated) up to this.
inline constexpr int64_t kMaxSampledGlobalBytes = int64_t(1) << 36;

// The first simulator limit `kernel` exceeds, as an error located at the
// grid, the loop, or the declaration of the buffer that crosses the memory
// limit; nullopt when it fits. Sizes of dynamic shapes count only once known
// (see runKernel).
// `sampled`: the limits of a sampled run (sampledBlocks), whose global
// tensors are filled on demand and count only as far as the blocks touch them.
std::optional<Diagnostic> checkSimulationLimits(const ir::Kernel& kernel, bool sampled = false);

// Sampled runs (docs/simulator.md, "Sampled runs"): a single-launch kernel
// whose global tensors alone exceed kMaxSimulatedBytes, but which otherwise
// fits, runs only its first and last block, in both the reference and the
// simulation, on global memory filled on first touch; the comparison covers
// the bytes those blocks touched.
bool needsSampling(const ir::Kernel& kernel);
std::vector<int64_t> sampledBlocks(int64_t grid);

// Why runKernel or runLaunches ran nothing.
struct RunRefusal {
  // True: kernels beyond checkSimulationLimits, one located error per launch
  // (a kernel error: `run` exits 3). False: one error without a location, a
  // problem of the options (unreadable or mismatching --input files, --input
  // files whose dynamic shapes exceed kMaxSimulatedBytes): a usage error.
  bool beyondLimits = false;
  std::vector<Diagnostic> errors;

  const std::string& message() const { return errors.front().message; }  // the first error's
};

// Runs the reference and the simulation of one kernel from fresh global
// memory; nullopt and `refusal` when it does not run. Nothing is allocated
// before the limits and the --input files are checked.
std::optional<KernelRun> runKernel(const ir::Kernel& reference, const ir::Kernel& lowered,
                                   const Target& target, const RunOptions& options,
                                   RunRefusal& refusal);

// One kernel of a program to run: the original kernel (the reference) and its lowering.
struct Launch {
  const ir::Kernel* reference = nullptr;
  const ir::Kernel* lowered = nullptr;
};

struct ProgramRun {
  std::vector<KernelRun> launches;  // one per Launch, in order
  int64_t cycles = 0;               // every launch, one after the other
};

// Runs the kernels of a program in order, as runKernel does. The launches of
// one prim_func (consecutive kernels numbered by ir::Kernel::launch) share
// global memory: each starts from the global tensors its predecessor left
// (the reference chain and the simulated chain separately; a tensor's
// generated or --input data only for launch 0; scalar parameters and dynamic
// sizes are bound as usual) at the cycle its predecessor ended, once every
// block of it has finished, so no access of one launch races with one of
// another. Every launch is checked against the simulator's limits before any
// runs: nullopt with every launch beyond them in `refusal`; otherwise nullopt
// and `refusal` at the first launch that does not run, as runKernel.
std::optional<ProgramRun> runLaunches(const std::vector<Launch>& launches, const Target& target,
                                      const RunOptions& options, RunRefusal& refusal);

}  // namespace tilesched::sim
