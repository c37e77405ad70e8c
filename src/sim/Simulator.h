// Cycle-level simulator of Ascend AI cores (SPEC §3, §7.1).
//
// One block runs on one core. A scalar unit walks the (lowered) kernel: loop
// control, branch conditions and scalar statements cost cycles from the
// target's scalar parameters, and every tile instruction is issued into the
// bounded in-order queue of its pipe (the scalar unit stalls on a full queue).
// Pipes start instructions in order, each occupying its pipe for the
// instruction's II and completing after its latency (cost::instructionCost);
// S, V and M complete in order, MTE1/MTE2/MTE3/FIX may overlap. A gemm on L1
// operands is two linked parts: its MTE1 part (reads A and B) and its M part,
// which starts once the MTE1 part has completed.
//
// Values are computed for real: an instruction of an overlapping pipe reads
// its operands at its start and its writes land at its completion; an
// instruction of an in-order pipe reads and writes at its completion (in-order
// completion is what lets consecutive same-pipe instructions depend on each
// other without any sync, SPEC §6.3). So a missing flag gives wrong values as
// well as a race report.
//
// Synchronisation follows SPEC §3.3 exactly; illegal use is reported (double
// set, id out of range, deadlock with every pipe's blocked instruction, flags
// left set). Races are found by RaceDetector (vector clocks, not timing).
//
// Assumes: a verified kernel; GM tensors already hold the inputs in `memory`.
// Guarantees: deterministic (fixed processing order at equal times); never
// throws on a kernel's run-time errors (they are returned as issues).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "sim/Machine.h"
#include "sim/RaceDetector.h"
#include "target/Target.h"

namespace tilesched::sim {

// What an instruction does, for colours, legends and trace names.
enum class OpKind : uint8_t {
  Load,     // GM -> UB / L1 (MTE2)
  Store,    // UB -> GM / L1 (MTE3)
  L1ToL0,   // L1 -> L0A / L0B (MTE1), incl. the MTE1 part of an L1 gemm
  Fixpipe,  // L0C -> UB / GM (FIX)
  Gemm,     // Cube
  Vector,   // T.Parallel, vector moves
  Reduce,
  Fill,
  VFRegion,
  Scalar,  // statements run by the scalar unit
  SetFlag,
  WaitFlag,
  Barrier,
};
inline constexpr size_t kNumOpKinds = 13;
const char* opKindName(OpKind k);

// One interval on one pipe, for --trace and --timeline.
struct TraceEvent {
  Pipe pipe;
  OpKind kind;
  int64_t start = 0;
  int64_t end = 0;  // completion (>= start + 1)
  uint32_t line = 0;
  std::string name;  // "T.copy A->a_ub", "set_flag MTE2->V #0"
  // The module `line` is in when a factory was imported from one (SourceLoc's
  // convention: null is the kernel's own file).
  const SourceFile* file = nullptr;
  // What fits inside a timeline bar: "copy A→a_ub", "add→c_ub"; empty for
  // flags, waits and barriers.
  std::string label;
  // Index into SimResult::iterations[block]: the iteration of the innermost
  // loop that issued it; -1 outside loops.
  int32_t iteration = -1;
  // The core of a manual-form group that ran it (0 the AIC, 1 + s AIV s;
  // sim/CrossCoreFlags.h), 0 on a single core.
  uint8_t core = 0;
};

// A loop of the simulated kernel (any kind: the scheduler pipelines
// T.serial loops too), as the trace names it.
struct TraceLoop {
  std::string var;
  SourceLoc loc;
};

// One iteration of a TraceLoop in one block.
struct TraceIteration {
  int32_t loop = 0;     // index into SimResult::traceLoops
  int64_t value = 0;    // of the loop variable
  int32_t parent = -1;  // the enclosing loop's iteration, or -1
};

struct FlagArrow {
  Pipe src, dst;
  int64_t id = 0;
  int64_t setTime = 0, waitTime = 0;
  // The cores of a core group that set and waited (0 the AIC, 1 + s AIV s;
  // both 0 on one core); a cross-core flag has different ones.
  int srcCore = 0, dstCore = 0;
};

struct PipeStats {
  int64_t busy = 0;          // cycles occupied by work (sum of IIs; scalar unit: its busy cycles)
  int64_t instructions = 0;  // work instructions started
  int64_t flagStall = 0;     // cycles the pipe's head waited on a wait_flag
  int64_t barrierStall = 0;  // cycles the head waited on a pipe_barrier / barrier_all
};

struct BlockStats {
  int64_t block = 0;
  int64_t cycles = 0;
  std::array<PipeStats, kNumPipes> pipes{};
  int64_t lowerBound = 0;  // the busiest pipe's busy cycles
  Pipe bottleneck = Pipe::S;
  int64_t flagStall = 0;  // summed over pipes
  int64_t instructions = 0;
};

// An error of the kernel found while simulating it.
struct SimIssue {
  enum Kind { Flag, Deadlock, Capacity, Runtime } kind = Runtime;
  SourceLoc loc;
  std::string message;
  std::vector<std::pair<SourceLoc, std::string>> notes;
  int64_t block = -1;
};

// Placement of one on-chip storage by the simulator's allocator.
struct Allocation {
  std::string name;
  MemScope scope;
  int64_t offset = 0, bytes = 0;
};

struct SimOptions {
  int64_t cores = 0;  // 0: one core per block
  // The blocks to run, in order; empty: every block (a sampled run, see sim/Run.h).
  std::vector<int64_t> blocks;
  bool recordTrace = true;
  int64_t maxTraceEvents = 200000;
  // Values of scalar parameters and dynamic sizes, by name.
  std::vector<std::pair<std::string, Scalar>> bindings;
  // Tile-at-a-time evaluation (Machine::fastPaths); off only to measure or
  // test the element-at-a-time paths, which give the same results.
  bool fastPaths = true;
  // Called after each simulated block, from whichever thread ran it (so it
  // must be thread-safe); a launch that falls back from two threads to one
  // reports its blocks again. For progress lines only.
  std::function<void()> blockDone;
  // 2: the blocks of a launch are simulated on two threads (even and odd
  // blocks) when that cannot change the result: no trace is recorded, no
  // atomic stores, and afterwards no block turned out to touch global bytes
  // another block writes (else, or after a run-time error, the launch is
  // simulated again on one thread). Results are identical either way.
  // Not used when the global tensors exceed 16 MiB: copying them twice costs
  // more than the second thread saves (docs/simulator.md, "Benchmark").
  int threads = 2;
};

// Throws ExecError at the first T.assume of `kernel` that is false for the
// block `block` bound in `machine` (parameters and dynamic sizes bound too).
void checkAssumptions(const ir::Kernel& kernel, Machine& machine, int64_t block);

struct SimResult {
  std::vector<BlockStats> blocks;
  int64_t cores = 1, waves = 1;
  // Per entry of `blocks`: the cycle its wave starts (waves run one after
  // the other, each as long as its longest block).
  std::vector<int64_t> blockStart;
  int64_t cycles = 0;      // sum over waves of the longest block of the wave
  int64_t lowerBound = 0;  // sum over waves of the largest block lower bound
  double efficiency = 0;
  std::array<int64_t, kNumPipes> busy{};  // sum over waves of the wave's largest busy
  int64_t flagStall = 0;
  int64_t instructions = 0;
  std::vector<Allocation> allocations;
  std::array<int64_t, kNumMemScopes> used{};  // bytes after alignment
  std::vector<Race> races;
  int64_t raceOccurrences = 0;
  std::vector<SimIssue> issues;
  std::vector<std::vector<TraceEvent>> trace;           // per block
  std::vector<std::vector<FlagArrow>> arrows;           // per block
  std::vector<TraceLoop> traceLoops;                    // what TraceIteration::loop indexes
  std::vector<std::vector<TraceIteration>> iterations;  // per block
  bool traceTruncated = false;
  bool aborted = false;  // a run-time error or deadlock stopped the simulation

  int64_t count(SimIssue::Kind k) const;
  int64_t flagErrors() const { return count(SimIssue::Flag) + count(SimIssue::Deadlock); }
};

// Short text of an instruction for reports: "T.copy A -> a_ub", "T.Parallel -> c_ub".
std::string instructionName(const ir::StmtNode* s);
// Shorter still, for a timeline bar: "copy A→a_ub", "gemm a_l1,b_l1→c_l0c",
// "exp→e_ub" (a T.Parallel by the outermost operation of its first store).
std::string instructionLabel(const ir::StmtNode* s);

// Runs every block of `kernel` on `memory` (GM holds the inputs; on-chip
// storages are reset per block). `memory` must have been built for `kernel`.
SimResult simulate(const ir::Kernel& kernel, const Target& target, Memory& memory,
                   const SimOptions& options);

// Places the kernel's on-chip storages per scope with the target's alignment
// and reports every one that ends beyond the real capacity.
std::vector<Allocation> allocate(const ir::Kernel& kernel, const Target& target,
                                 std::vector<SimIssue>& issues,
                                 std::array<int64_t, kNumMemScopes>& used);

}  // namespace tilesched::sim
