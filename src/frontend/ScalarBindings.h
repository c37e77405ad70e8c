// The values of the run-time scalars a kernel body binds, for region extents.
//
// Expects: `record(var, value)` called for every IR assignment the elaborator
// emits for a kernel name (`begin = (t * n + bx) * TILE`), in program order.
// Guarantees: `constExtent(stop, start)` is `stop - start` when it is the same
// constant for every value of the variables, after replacing bound scalars by
// the values they hold at this point of the body; nullopt otherwise. Only
// values without memory reads are remembered, and a binding whose value reads
// a variable is forgotten when that variable is assigned again, so a
// replacement never stands for an older value.
//
//   begin = (t * 4 + bx) * 256        record(begin, (t*4 + bx)*256)
//   end = begin + 256                 record(end, begin + 256)
//   T.copy(A[begin:end], a)           constExtent(end, begin) = 256
#pragma once

#include <map>
#include <optional>

#include "ir/IR.h"

namespace tilesched::frontend {

class ScalarBindings {
 public:
  void record(const ir::Var& var, const ir::Expr& value);
  std::optional<int64_t> constExtent(const ir::Expr& stop, const ir::Expr& start) const;

 private:
  ir::Expr expand(const ir::Expr& e, int depth) const;
  std::map<int, ir::Expr> values_;  // var id -> the value it holds now
};

}  // namespace tilesched::frontend
