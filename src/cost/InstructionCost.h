// Cost of one IR instruction on a target: the bridge between the tile IR and
// the target's cost model (SPEC §3.4). Used by the scheduling analyses (task
// latencies and IIs) and by the simulator (instruction timing), so both agree
// on what one instruction costs.
//
// Assumes: `op` is a leaf instruction of the IR — Copy, Gemm, Fill, Reduce,
// Parallel, VFRegion, Store or Assign (scalar), SetFlag/WaitFlag/Barrier.
// Anything else (Seq, For, If) is an internal error.
// Guarantees: latency >= ii >= 1 for work instructions (0 for a pure let,
// InstructionCost::registerOnly); flags and barriers
// cost 1 cycle on their pipe; deterministic; every figure comes from the
// target's CostModelParams.
//
// How each instruction is costed (docs/analyses.md, "Task costs"):
//   Copy      copyCost(path, bytes, rows, rowBytes, rowStrided): path from the
//             scopes (copyPathFor), bytes = elements x source dtype bytes, the
//             geometry of the GM side (else the source side): a row is the
//             longest contiguous run of the region; strided when rows > 1.
//   Gemm      gemmCost(M, N, K, class of A's dtype); float32 operands are the
//             exact fp32 class unless CostOptions::fp32GemmAsHf32. With L1
//             operands the MTE1 part (the L1->L0A copy of A then the L1->L0B
//             copy of B) is `second*`.
//   Fill      V: one simple op per element, bytes written; on L1 (MTE2): the
//             GM->L1 copy of the same bytes.
//   Reduce    V: one simple op per source element (two for abs variants),
//             bytes read + bytes written (+ dst read when clear=False).
//   Parallel  V: elementwiseOpCycles of the body over the iteration space,
//             bytes touched by every load and store (box of each access).
//   VFRegion  `latency=L` gives (L, L); else the sum of its statements' costs.
//   Store / Assign   S: one scalar statement; a let or T.alloc_var update
//             computed from registers only is registerOnly (no pipe, no time).
//   SetFlag / WaitFlag / Barrier   (1, 1) on the src / dst / barrier pipe.
//
//   T.copy(A[0:16, 0:16], a_l1)   # A is (64, 64) bfloat16, GM->L1, MTE2
//   → {pipe MTE2, latency 196, ii 64, copyPath gm_to_l1}
#pragma once

#include <cstdint>
#include <optional>

#include "ir/IR.h"
#include "target/CostModel.h"
#include "target/Target.h"

namespace tilesched::cost {

struct InstructionCost {
  Pipe pipe;            // the pipe whose queue the instruction enters
  int64_t latency = 1;  // start → completion (for a gemm: of its M part)
  int64_t ii = 1;       // cycles `pipe` is busy before its next start
  // A gemm on L1 operands also occupies MTE1 (SPEC §1.5); its MTE1 part, which
  // runs first: the M part starts when the MTE1 part has completed.
  std::optional<Pipe> secondPipe;
  int64_t secondLatency = 0;
  int64_t secondIi = 0;
  std::optional<CopyPath> copyPath;  // for copies
  // A let or T.alloc_var update computed from registers only (`off = bx *
  // 4096 + s * 1024`, `n = n + 1`; no load of a buffer in memory): register
  // arithmetic the scalar unit folds into issuing the instructions that use
  // it, exactly as it computes an address written inline. It occupies no pipe
  // and takes no time (latency 0, ii 0), so a named offset and the same
  // offset written inline cost the same, and so do a lowering's counter and
  // the T.alloc_var it prints as.
  bool registerOnly = false;
};

// Knobs that the kernel language does not (yet) express.
struct CostOptions {
  // Cost float32 gemms in the Cube's reduced-precision hf32 mode (the
  // calibration point "gemm fp32-hf32 64x64x24 = (115, 48)"). Off by default:
  // the simulator computes float32 gemms exactly (SPEC §1.6).
  bool fp32GemmAsHf32 = false;
};

// The cost of one leaf instruction.
InstructionCost instructionCost(const ir::Stmt& op, const Target& target);
InstructionCost instructionCost(const ir::Stmt& op, const Target& target,
                                const CostOptions& options);

// Start-to-completion time of the whole instruction: for an L1-operand gemm
// the MTE1 part followed by the M part, else `latency`.
inline int64_t totalLatency(const InstructionCost& c) {
  return c.secondPipe ? c.secondLatency + c.latency : c.latency;
}

// Element-wise work of an expression tree, in vector cycles per element
// summed over its operators (add/sub/mul/min/max/compare at 51 elements per
// cycle on ascend950, div/mod at 13, transcendental at 8): used for
// T.Parallel bodies and VF regions without `latency=`. Every Binary, Unary,
// Select and Cast node of every expression in `body` (values, indices of
// stored elements are not counted, conditions of ifs are) is one op over
// `elements` elements; loads and constants are free.
int64_t elementwiseOpCycles(const ir::Stmt& body, int64_t elements, const Target& target);

// The layout of a copy as the DMA sees it (inputs of copyCost).
struct CopyGeometry {
  int64_t bytes = 0;        // elements x source dtype bytes
  int64_t rows = 1;         // number of contiguous runs
  int64_t rowBytes = 0;     // bytes of one run
  bool rowStrided = false;  // rows > 1: the region is not contiguous
};
// Geometry of a copy: measured on the GM side's region when one side is
// global memory, else on the source region.
CopyGeometry copyGeometry(const ir::CopyStmt& copy);

// Longest contiguous run (in elements) of a box in its buffer, row-major:
// the innermost dimensions while they cover the buffer's whole extent, times
// the first one that does not. Symbolic dimensions never count as covered.
int64_t contiguousRunElements(const ir::Region& region);

// Elements x dtype bytes of a region.
int64_t regionBytes(const ir::Region& region);

}  // namespace tilesched::cost
