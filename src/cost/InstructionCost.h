// Cost of one IR instruction on a target: the bridge between the tile IR and
// the target's cost model (SPEC §3.4). Used by the scheduling analyses (task
// latencies and IIs) and by the simulator (instruction timing), so both agree
// on what one instruction costs.
//
// Assumes: `op` is a leaf instruction of the IR — Copy, Gemm, Fill, Reduce,
// Parallel, VFRegion, Store or Assign (scalar), SetFlag/WaitFlag/Barrier.
// Guarantees: latency >= ii >= 1 for work instructions; flags and barriers
// cost 1 cycle on their pipe; deterministic.
#pragma once

#include <optional>

#include "ir/IR.h"
#include "target/CostModel.h"
#include "target/Target.h"

namespace tilesched::cost {

struct InstructionCost {
  Pipe pipe;                       // the pipe whose queue the instruction enters
  int64_t latency = 1;             // start → completion
  int64_t ii = 1;                  // cycles `pipe` is busy before its next start
  // A gemm on L1 operands also occupies MTE1 (SPEC §1.5); its MTE1 part.
  std::optional<Pipe> secondPipe;
  int64_t secondLatency = 0;
  int64_t secondIi = 0;
  std::optional<CopyPath> copyPath;  // for copies
};

// The cost of one leaf instruction. `inScalarUnit` marks Store/Assign that
// the scalar unit runs itself (outside VF regions and T.Parallel bodies).
InstructionCost instructionCost(const ir::Stmt& op, const Target& target);

// Element-wise work of an expression tree, in vector cycles per element
// summed over its operators (add/sub/mul/min/max/compare at 51 elements per
// cycle on ascend950, div/mod at 13, transcendental at 8): used for
// T.Parallel bodies and VF regions without `latency=`.
int64_t elementwiseOpCycles(const ir::Stmt& body, int64_t elements, const Target& target);

}  // namespace tilesched::cost
